import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { applySeeds } from '../../src/cli/seed.js';
import { DEFAULT_CONFIG, type Config } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { post as postTo } from '../helpers/http-call.js';

let server: RunningServer;
let dir: string;
const config: Config = Object.freeze({
  ...DEFAULT_CONFIG,
  port: 0,
  dbPath: ':memory:',
  apiKey: 'sk_test_seed_key_0123456789abcdefghijklmnop',
  adminToken: 'seed-admin',
  backgroundJobs: false,
});

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'seed-'));
  server = await startServer({ config });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = async (path: string, body: unknown, key = config.apiKey!) =>
  (await postTo(server.url, key, path, body)).body;

describe('serve --seed FILE', () => {
  it('applies a file without `account` to the ready account (SANDBOX_API_KEY), topping up rather than resetting', async () => {
    const file = join(dir, 'demo.yaml');
    writeFileSync(
      file,
      'name: demo\naccount: { balance: 300 }\nsteps:\n  - request: POST /v1/card/create\n    body: { amount: 100, currency: USDT, alias: demo }\n',
    );
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    // Without an admin token, a file asking only for a balance seeds the ready account.
    expect(await applySeeds([file], server.url, { ...config, adminToken: undefined }, undefined)).toBe(true);
    out.mockRestore();
    const cards = (await post('/v1/card/list', {})) as { cardList: { alias?: string }[] };
    expect(cards.cardList).toHaveLength(1);
    const assets = (await post('/v1/wallet/assetList', {})) as { assetList: { availableAmount: string }[] };
    expect(assets.assetList[0].availableAmount).toBe('200');
  });

  it('gives a file that declares `account` a fresh account and prints its key once', async () => {
    const file = join(dir, 'tenant.yaml');
    writeFileSync(
      file,
      'name: tenant\naccount: { balance: 50, depositFeeRate: "0" }\nsteps:\n  - request: POST /v1/card/create\n    body: { amount: 50, currency: USDT }\n',
    );
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    expect(await applySeeds([file], server.url, config, undefined)).toBe(true);
    const printed = out.mock.calls.map((c) => String(c[0])).join('');
    out.mockRestore();
    const key = /API key \(shown once, keep it\): (\S+)/.exec(printed)![1];
    const cards = (await post('/v1/card/list', {}, key)) as { cardList: { availableBalance: number }[] };
    expect(cards.cardList).toEqual([expect.objectContaining({ availableBalance: 50 })]);
    expect(((await post('/v1/card/list', {})) as { cardList: unknown[] }).cardList).toHaveLength(0);
  });

  it('refuses to start on a malformed or failing seed file', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      'name: bad\nsteps:\n  - request: POST /v1/card/create\n    body: { amount: 5, currency: USDT }\n',
    );
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(await applySeeds([bad], server.url, config, undefined)).toBe(false);
    expect(String(err.mock.calls[0][0])).toContain('bad.yaml:3 POST /v1/card/create');
    writeFileSync(bad, 'name: bad\nstep: []\n');
    expect(await applySeeds([bad], server.url, config, undefined)).toBe(false);
    expect(String(err.mock.calls.at(-1)![0])).toMatch(/bad\.yaml:\d+: /);
  });
});
