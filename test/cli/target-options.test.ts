import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, ensureBuilt, spawnCli } from '../helpers/cli-process.js';
import { freePort } from '../helpers/loopback.js';

// Every command that talks to a sandbox takes its target the same way (src/cli/target-options.ts): --base-url and
// --api-key, else SANDBOX_BASE_URL and SANDBOX_API_KEY, with the same usage message when one is missing.

// Made when the file loads: the test tables below are built before any hook runs.
const dir = mkdtempSync(join(tmpdir(), 'sandbox-target-'));
const recording = join(dir, 'recording.jsonl');
beforeAll(() => {
  ensureBuilt();
  const exchange = {
    seq: 1,
    time: '2026-06-01T00:00:00.000Z',
    method: 'POST',
    path: '/v1/wallet/assetList',
    request: { headers: {}, body: {} },
    status: 200,
    response: { headers: {}, body: { code: 0, message: 'ok', assetList: [] } },
    latencyMs: 1,
  };
  writeFileSync(recording, `${JSON.stringify(exchange)}\n`);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const commands: [string, string[]][] = [
  ['verify', ['verify']],
  ['logs tail', ['logs', 'tail']],
  ['trigger', ['trigger', 'card.frozen']],
  ['readiness', ['readiness', '--window', '1']],
  ['replay', ['replay', recording]],
  ['scenario run', ['scenario', 'run', 'scenarios/wallet.yaml']],
];

async function run(args: string[], env: Record<string, string>) {
  const proc = spawnCli(args, { env: cleanEnv(env) });
  const { code } = await proc.exited;
  return { code, err: proc.stderr() };
}

describe('one way to name the target: --base-url / --api-key, or SANDBOX_BASE_URL / SANDBOX_API_KEY', () => {
  it.each(commands.filter(([name]) => name !== 'scenario run'))(
    '%s without either is a usage error (2) naming both the flag and the variable',
    async (_name, args) => {
      const { code, err } = await run(args, {});
      expect(code).toBe(2);
      expect(err).toContain('--base-url URL (or SANDBOX_BASE_URL) is required');
    },
  );

  it.each(commands)(
    '%s reads the target from the environment: an unreachable one is exit 3, not a usage error',
    async (_name, args) => {
      const port = await freePort(); // nothing listens there
      const { code, err } = await run(args, {
        SANDBOX_BASE_URL: `http://127.0.0.1:${port}`,
        SANDBOX_API_KEY: 'sk_sandbox_from_the_environment',
      });
      expect(err, err).not.toMatch(/required/);
      // scenario run reports an unreachable target as a failed file (1); the others exit 3.
      expect(code, err).toBe(args[0] === 'scenario' ? 1 : 3);
      expect(err + '').not.toContain('sk_sandbox_from_the_environment');
    },
  );
});
