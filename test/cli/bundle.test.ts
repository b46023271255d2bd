import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ensureBuilt, spawnCli, stop, ROOT } from '../helpers/cli-process.js';
import { waitFor } from '../helpers/wait.js';
import { freePort } from '../helpers/loopback.js';

// The command partners run (package.json `bin`, the Docker image, `npm start`) is dist/src/cli/main.js bundled with
// what it imports (scripts/bundle.mjs): one file and its chunks in dist/src/chunks/, in place of some 210 modules,
// which is most of what a cold start spent.

const COMMAND = join(ROOT, 'dist/src/cli/main.js');
const CHUNKS = join(ROOT, 'dist/src/chunks');
const bundleFiles = () => [
  COMMAND,
  ...readdirSync(CHUNKS)
    .filter((f) => f.endsWith('.js'))
    .map((f) => join(CHUNKS, f)),
];

beforeAll(() => ensureBuilt());

describe('the bundled card-sandbox command', () => {
  it('is the file package.json, its lockfile, the Docker image and npm start run, at the path it always had', () => {
    // npx links a project's own bin once, in its cache: a new path would leave old links pointing at nothing.
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { bin?: Record<string, string> }>;
    };
    expect(pkg.bin['card-sandbox']).toBe('dist/src/cli/main.js');
    expect(lock.packages['']!.bin).toEqual(pkg.bin);
    expect(readFileSync(join(ROOT, 'Dockerfile'), 'utf8')).toMatch(/ENTRYPOINT \["node", "dist\/src\/cli\/main\.js"\]/);
    expect(readFileSync(join(ROOT, 'scripts/start.mjs'), 'utf8')).toContain("'dist/src/cli/main.js'");
    const text = readFileSync(COMMAND, 'utf8');
    expect(text.startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(text).toContain('Bundled by scripts/bundle.mjs');
  });

  // A path our code resolves against its own file means something else once the file is a chunk of the bundle
  // unless it goes by way of its folder; the log's worker thread quietly falls back to writing on the main thread
  // when its file is not found, so nothing else would notice.
  it('finds every file it resolves against its own location', () => {
    const literal = /new URL\(\s*(['"`])((?:\.\.?\/)[^'"`]*)\1\s*,\s*import\.meta\.url\s*\)/g;
    const targets: string[] = [];
    for (const file of bundleFiles()) {
      for (const m of readFileSync(file, 'utf8').matchAll(literal)) {
        // A template's `${extname(import.meta.url)}` is the running file's own extension: .js here.
        const path = m[2]!.replace(/\$\{[^}]*\}/g, '.js');
        targets.push(fileURLToPath(new URL(path, pathToFileURL(file))));
      }
    }
    const names = targets.map((t) => t.slice(ROOT.length + 1)).sort();
    expect(names).toEqual(
      expect.arrayContaining(['dist/src/cli/seed-process.js', 'dist/src/logging/log-writer.js', 'package.json']),
    );
    for (const target of targets) expect(existsSync(target), target).toBe(true);
  });

  it('serve reads no module of ours outside the bundle until its first /healthz', async () => {
    const port = await freePort();
    const hooks = pathToFileURL(join(ROOT, 'test/fixtures/hooks/record-loads.mjs')).href;
    const register = `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(hooks)})`;
    const proc = spawnCli(['--import', register, COMMAND, 'serve', '--port', String(port), '--db', ':memory:'], {
      command: process.execPath,
      env: cleanEnv(),
    });
    const res = await waitFor('the first answer of /healthz', () => {
      if (proc.child.exitCode !== null) throw new Error(`serve exited: ${proc.stderr()}`);
      return fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    });
    expect(res.status).toBe(200);
    // The hook wrote its lines before the server listened, but this process may read the child's stderr after the
    // answer: wait until the first of them, the command's own, has been read (a busy run read none at the answer).
    const commandLine = `loaded ${pathToFileURL(COMMAND).href}`;
    await waitFor("the load hook's line for the command", () => proc.stderr().includes(commandLine) || undefined);
    const loaded = [...proc.stderr().matchAll(/^loaded (file:\S+)$/gm)].map((m) => fileURLToPath(m[1]!));
    const ours = loaded.filter((p) => p.startsWith(ROOT + '/') && !p.includes('/node_modules/'));
    expect(ours).toContain(COMMAND);
    expect(ours.filter((p) => p !== COMMAND && !p.startsWith(CHUNKS + '/'))).toEqual([]);
    expect((await stop(proc)).code).toBe(0);
  });
});

describe('the package', () => {
  /** The files `npm pack` puts in the tarball (a dry run, without the build its `prepare` would start). */
  const packed = (): string[] => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: cleanEnv(),
    });
    return (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
  };

  it('ships the build, the contracts, the scenarios, the docs and the webhook verifiers as files, nothing else', () => {
    const files = packed();
    expect(files.filter((f) => f.startsWith('verifiers/')).sort()).toEqual([
      'verifiers/README.md',
      'verifiers/csharp/WebhookVerifier.cs',
      'verifiers/go/webhook.go',
      'verifiers/java/WebhookVerifier.java',
      'verifiers/javascript/webhook-verifier.mjs',
      'verifiers/python/webhook_verifier.py',
      'verifiers/vectors.json',
    ]);
    expect(files).toEqual(
      expect.arrayContaining(['dist/src/cli/main.js', 'contracts/index.json', 'docs/webhooks.md', 'README.md']),
    );
    const allowed = /^(dist\/src\/|contracts\/|scenarios\/|verifiers\/|docs\/[^/]+\.md$|README\.md$|package\.json$)/;
    expect(files.filter((f) => !allowed.test(f))).toEqual([]);
  });
});
