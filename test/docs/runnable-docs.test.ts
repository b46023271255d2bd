import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ensureBuilt, ROOT, serveOn, type ServeProcess, stop } from '../helpers/cli-process.js';
import { WAIT_LIMIT_MS } from '../helpers/wait.js';
import { shellCommands } from './shell-commands.js';

// The commands a partner copies from the README and the docs run as written. Each shell block marked `<!-- run -->`
// is extracted and run by bash against a freshly started compiled server on a fresh database, with the API key that
// server printed in KEY and its URL in place of the documented http://127.0.0.1:8080. Every answer must be a success:
// each JSON line printed carries `"code":0`, or no code at all (the spec lets reads and card/create omit it; every
// error body has a non-zero code).

const DOCUMENTED_URL = 'http://127.0.0.1:8080';

/** The shell blocks of a page that follow a `<!-- run -->` line, in order. */
export function runnableBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^<!-- run -->\n+```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/** The top-level `code` of every JSON object printed on a line of its own. */
function answerCodes(output: string): unknown[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => (JSON.parse(l) as { code?: unknown }).code);
}

/** An answer's code means failure when it is there and not 0. */
const failed = (code: unknown) => code !== undefined && code !== 0;

let dir: string;
let server: ServeProcess & { url: string };
let key: string;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'runnable-docs-'));
  server = await serveOn(join(dir, 'sandbox.db'));
  key = /API key \(shown once, keep it\): (\S+)/.exec(server.stdout())![1]!;
});

afterAll(async () => {
  if (server) await stop(server);
  rmSync(dir, { recursive: true, force: true });
});

/** Runs in the temporary folder, so files the docs write (webhook.json) land there. */
function sh(script: string): string {
  return execFileSync('bash', ['-c', script.replaceAll(DOCUMENTED_URL, server.url)], {
    cwd: dir,
    env: cleanEnv({ KEY: key }),
    encoding: 'utf8',
    timeout: WAIT_LIMIT_MS,
  });
}

describe('README quick start', () => {
  const blocks = runnableBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));

  it('marks its first calls as runnable', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it('prints the API key the first calls use, as the README shows it', () => {
    expect(server.stdout()).toMatch(/^API key \(shown once, keep it\): sk_sandbox_\S+$/m);
  });

  it('runs each first call as written: it exits 0 and answers with success', () => {
    for (const command of blocks.flatMap(shellCommands)) {
      const out = sh(command);
      expect(answerCodes(out), `${command}\n${out}`).toHaveLength(1);
      expect(answerCodes(out).filter(failed), `${command}\n${out}`).toEqual([]);
    }
  });
});

describe('docs/console.md', () => {
  it('signs in from a script as written: a 303 with the session cookie, then a console page with it', () => {
    const blocks = runnableBlocks(readFileSync(join(ROOT, 'docs/console.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThan(0);
    const out = sh(['set -euo pipefail', ...blocks].join('\n'));
    expect(out.split('\n').filter(Boolean)).toEqual(['303', 'USDT available']);
  });
});

// webhooks.md last: its webhook points at a loopback port nothing listens on, so later events would only fail there.
describe.each(['docs/driving.md', 'docs/idempotency.md', 'docs/developer-tools.md', 'docs/webhooks.md'])(
  '%s',
  (page) => {
    it('runs its walk-through as written, every answer a success', () => {
      const blocks = runnableBlocks(readFileSync(join(ROOT, page), 'utf8'));
      expect(blocks.length).toBeGreaterThan(0);
      const out = sh(['set -euo pipefail', ...blocks].join('\n'));
      const codes = answerCodes(out);
      expect(codes.length, out).toBeGreaterThanOrEqual(2);
      expect(codes.filter(failed), out).toEqual([]);
      if (page === 'docs/idempotency.md') expect(out).toMatch(/^idempotent-replayed: true\r?$/im);
      if (page === 'docs/webhooks.md')
        expect(readFileSync(join(dir, 'webhook.json'), 'utf8')).toMatch(/"secret":"whsec_/);
    });
  },
);
