import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import * as registry from '../../src/contracts/registry.js';
import { ProxyOutputs } from '../../src/proxy/outputs.js';
import { startProxy } from '../../src/proxy/server.js';
import { readExchanges, readRecording, scanRecording } from '../../src/replay/recording.js';
import { replay, type Outcome } from '../../src/replay/run.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { CheckContext } from '../../src/verify/context.js';
import type { Model, Real } from '../../src/verify/properties/model.js';
import { checkedCommands, modelSetup } from '../../src/verify/properties/run.js';
import { propertyRuns, propertyTimeoutMs } from '../helpers/property-runs.js';

// Replay agrees with the sandbox it replays: any sequence of the model's commands (card creation, top-ups, freezes,
// keyed retries and conflicts, clock steps, each followed by a read of every balance, all checked against the
// model while they are recorded) replayed against a fresh child sandbox reports no divergence. A short run in
// `npm test`; REPLAY_PROPERTY_RUNS=200 for a longer one.

const RUNS = propertyRuns(Number(process.env.REPLAY_PROPERTY_RUNS ?? 4));
const MAX_COMMANDS = Number(process.env.REPLAY_PROPERTY_COMMANDS ?? 12);
const KEY = `sk_sandbox_property${'0'.repeat(26)}KEY`;

let sandbox: RunningServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'replay-property-'));
  sandbox = await startServer({
    config: { ...DEFAULT_CONFIG, port: 0, dbPath: ':memory:', apiKey: KEY, backgroundJobs: false, logLevel: 'silent' },
  });
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = async (key: string, path: string, body: unknown) => {
  const res = await fetch(sandbox.url + path, {
    method: 'POST',
    headers: { 'X-API-KEY': key, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Record<string, any>;
};

/** Runs the commands on a new account through a recording proxy; answers the recording's file. */
async function recordRun(cmds: Iterable<fc.AsyncCommand<Model, Real>>, run: number): Promise<string> {
  const account = await post(KEY, '/sandbox/v1/sandboxes/create', { name: `recorded ${run}`, balance: 0 });
  const file = join(dir, `run-${run}.jsonl`);
  const outputs = new ProxyOutputs({ out: () => {}, recordFile: file });
  const proxy = await startProxy({ target: sandbox.url, onExchange: (x, v) => outputs.observe(x, v) });
  try {
    const ctx = new CheckContext(
      { baseUrl: proxy.url, apiKey: account.apiKey, timeoutMs: 30_000 },
      { strict: false, allowMutations: true, maxSpendMicros: Infinity, validator: registry },
      { spentMicros: 0, values: new Map() },
    );
    const setup = await modelSetup(ctx);
    await fc.asyncModelRun(setup, cmds);
  } finally {
    await proxy.close();
    await post(KEY, '/sandbox/v1/sandboxes/delete', { accountId: account.accountId });
  }
  return file;
}

describe('replay of a recorded model run', () => {
  it(
    "reports no divergence for any sequence of the model's commands",
    async () => {
      let run = 0;
      await fc.assert(
        fc.asyncProperty(checkedCommands(MAX_COMMANDS), async (cmds) => {
          const file = await recordRun(cmds, ++run);
          const recording = await readRecording(file);
          const outcomes: Outcome[] = [];
          const result = await replay({
            baseUrl: sandbox.url,
            apiKey: KEY,
            exchanges: readExchanges(file),
            summary: await scanRecording(file),
            name: `replay ${run}`,
            onOutcome: (o) => outcomes.push(o),
          });
          const diverged = outcomes.filter((o) => o.divergences.length > 0 || o.skipped !== undefined);
          expect(diverged, `${cmds.toString()}\n${file}`).toEqual([]);
          expect(outcomes).toHaveLength(recording.length);
          expect(result.child).toEqual({ deleted: true });
        }),
        { numRuns: RUNS },
      );
    },
    propertyTimeoutMs(600_000),
  );
});
