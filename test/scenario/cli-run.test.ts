import { mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, startSandbox, stop, type ServeProcess } from '../helpers/cli-process.js';

// `card-sandbox scenario run` through the compiled CLI: directories, and failures whose curl can be replayed.

const KEY = 'sk_test_scenario_cli_key_00000000000000000';
const PASSING = 'name: ok\nsteps:\n  - request: POST /v1/wallet/assetList\n';
const FAILING =
  'name: wrong\nsteps:\n  - request: POST /v1/card/detail\n    body: { cardId: nope }\n    expect: { status: 200 }\n';
let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'scenario-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('scenario run DIR', () => {
  it('runs every *.yaml and *.yml under the directory, nested ones included, and nothing else', async () => {
    const suite = join(dir, 'suite');
    mkdirSync(join(suite, 'nested'), { recursive: true });
    writeFileSync(join(suite, 'a.yaml'), PASSING);
    writeFileSync(join(suite, 'nested', 'b.yml'), PASSING.replace('ok', 'nested ok'));
    writeFileSync(join(suite, 'notes.txt'), 'not a scenario');
    const r = await runCli(['scenario', 'run', suite]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/PASS \S*suite\/a\.yaml/);
    expect(r.stdout).toMatch(/PASS \S*suite\/nested\/b\.yml/);
    expect(r.stdout).toMatch(/2 passed, 0 failed, 2 files/);
  });

  it('an empty directory is a usage error (exit 2)', async () => {
    mkdirSync(join(dir, 'empty'));
    const r = await runCli(['scenario', 'run', join(dir, 'empty')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no scenario files matched/);
  });
});

describe('a failing step prints a curl that can be replayed', () => {
  let sandbox: ServeProcess & { url: string };
  beforeAll(async () => {
    sandbox = await startSandbox(KEY);
  });
  afterAll(() => stop(sandbox));

  it('with --base-url, the curl names the target, which still answers after the run', async () => {
    writeFileSync(join(dir, 'remote-fail.yaml'), FAILING);
    const r = await runCli([
      'scenario',
      'run',
      join(dir, 'remote-fail.yaml'),
      '--base-url',
      sandbox.url,
      '--api-key',
      KEY,
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`curl -sS -X POST '${sandbox.url}/v1/card/detail'`);
    expect(r.stdout).not.toContain(KEY);
    const replay = await fetch(`${sandbox.url}/v1/card/detail`, {
      method: 'POST',
      headers: { 'X-API-KEY': KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify({ cardId: 'nope' }),
    });
    expect(replay.status).not.toBe(200);
    expect(((await replay.json()) as { code: number }).code).toBeGreaterThan(0);
  });

  it('embedded, the curl says that the sandbox it ran in is gone and how to replay it', async () => {
    writeFileSync(join(dir, 'embedded-fail.yaml'), FAILING);
    const r = await runCli(['scenario', 'run', join(dir, 'embedded-fail.yaml')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/# This ran in an embedded sandbox that is gone now: .*--base-url/);
  });
});
