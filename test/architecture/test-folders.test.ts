import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, importSpecifiers, sourceFiles } from './import-specifiers.js';

// A test folder guards one rule or module (test/README.md); what tests of several folders share has one home,
// test/helpers (the fixtures), or test/setup (what every run sets up). So a file under test/ imports only from its
// own folder, test/helpers and test/setup (anything outside test/ is fine: src, contracts, a package). A fixture
// written in one folder and borrowed by others had two homes to a reader, and grew copies where it was not found.
// Module references are read as the layer test reads them, plus `new URL('./x', import.meta.url)`, the way a test
// names a module it starts in a child process.

const TEST = join(ROOT, 'test');
const SHARED = new Set(['helpers', 'setup']);
const MODULE_URL = /new URL\(\s*['"](\.[^'"]+)['"]\s*,\s*import\.meta\.url\s*\)/g;

/** The relative references of a file's text: its import specifiers and the module URLs it builds. */
function references(text: string): string[] {
  const urls = [...text.matchAll(MODULE_URL)].map((m) => m[1]!);
  return [...importSpecifiers(text), ...urls].filter((s) => s.startsWith('.'));
}

/** The folder of test/ a path lies in ('cli' for test/cli/serve.test.ts), or undefined outside test/. */
function folderOf(path: string): string | undefined {
  const inTest = relative(TEST, path);
  return inTest.startsWith('..') || !inTest.includes(sep) ? undefined : inTest.split(sep)[0];
}

/** test-relative file -> its text, for every module under test/. */
function testTexts(): Map<string, string> {
  return new Map(
    sourceFiles(TEST, /\.(tsx?|mjs)$/).map((file) => [relative(TEST, file), readFileSync(file, 'utf8')] as const),
  );
}

/** `file -> target` for every reference from a file of one test folder into another's (helpers and setup aside). */
function crossFolderImports(texts: Map<string, string>): string[] {
  return [...texts].flatMap(([file, text]) =>
    references(text).flatMap((spec) => {
      const target = resolve(TEST, dirname(file), spec);
      const folder = folderOf(target);
      if (folder === undefined || SHARED.has(folder) || folder === folderOf(join(TEST, file))) return [];
      return [`test/${file} -> test/${relative(TEST, target)}`];
    }),
  );
}

describe('test folders: each imports only its own files, test/helpers and test/setup', () => {
  const texts = testTexts();

  it('reads every test module, the shared fixtures among them', () => {
    expect(texts.size).toBeGreaterThan(150);
    expect(references(texts.get('helpers/fixtures.ts')!)).toContain('./webhook-receiver.js');
    expect(references(texts.get('idempotency/crash-restart.test.ts')!)).toContain('../helpers/child/crash-server.ts');
  });

  it('no test imports another test folder’s files', () => {
    expect(crossFolderImports(texts)).toEqual([]);
  });

  it('the check bites: planted imports of another folder’s files are found, shared and own imports are not', () => {
    const file = 'cli/serve.test.ts';
    const q = "'"; // spelt apart, so that this file's own text references nothing
    const planted = new Map(texts);
    planted.set(
      file,
      [
        texts.get(file),
        "import { startReceiver } from '../webhooks/receiver.js';",
        "import type { World } from '../fuzz/world.js';",
        "export { ensureBuilt } from '../helpers/cli-process.js';",
        `const traffic = await import(${q}../crash/traffic.js${q});`,
        `const child = new URL(${q}../ops/child.ts${q}, import.meta.url);`,
        "import { conformance } from '../setup/conformance.js';",
        "import { startPartnerApp } from './partner-app.js';",
        "import { startServer } from '../../src/server.js';",
      ].join('\n'),
    );
    expect(crossFolderImports(planted)).toEqual([
      'test/cli/serve.test.ts -> test/webhooks/receiver.js',
      'test/cli/serve.test.ts -> test/fuzz/world.js',
      'test/cli/serve.test.ts -> test/crash/traffic.js',
      'test/cli/serve.test.ts -> test/ops/child.ts',
    ]);
  });

  it('a shared fixture is held to the rule too: test/helpers importing a test folder is found', () => {
    const planted = new Map(texts);
    const file = 'helpers/fixtures.ts';
    planted.set(file, `${texts.get(file)}\nimport { serveOn } from '../ops/backup.test.js';`);
    expect(crossFolderImports(planted)).toEqual(['test/helpers/fixtures.ts -> test/ops/backup.test.js']);
  });
});
