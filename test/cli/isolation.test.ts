import { mkdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT, runCli, startSandbox, stop, type ServeProcess } from '../helpers/cli-process.js';
import { call } from '../helpers/http-call.js';

// docs/design.md section 12 and docs/cli.md, "Decisions" (child sandboxes: docs/developer-tools.md):
// `scenario run --base-url --api-key` and `verify --allow-mutations` work in child sandboxes they create and delete,
// so the key's own account (cards, balance, webhook) is left exactly as it was, and runs sharing one key never see
// each other.

const KEY = 'sk_test_isolation_cli_key_0000000000000000';
let sandbox: ServeProcess & { url: string };
let dir: string;

const post = async (path: string, body: unknown = {}, method = 'POST'): Promise<Record<string, unknown>> =>
  (await call(sandbox.url, KEY, method, path, body)).body;

/** What a partner sees of their own account: every card with its balance, the wallet, the webhook. */
async function accountState() {
  const cards = (await post('/v1/card/list', {})).cardList;
  return {
    cards,
    wallet: (await post('/v1/wallet/assetList')).assetList,
    webhook: await post('/v1/webhook', undefined, 'GET'),
    children: (await post('/sandbox/v1/sandboxes/list')).sandboxes,
  };
}

/** A file that would see the key's own card, or another run's, if it ran in a shared account. */
const ALONE = (name: string) => `name: ${name}
account: { balance: 70, depositFeeRate: "0" }
webhook: { deliver3dsCode: false }
steps:
  - request: POST /v1/card/list
    expect: { body: { cardList: [] } }
  - request: POST /v1/card/create
    body: { amount: 20, currency: USDT }
    capture: { card: $.cardId }
  - expectWebhook: { type: card.created, data: { cardId: "{{card}}" } }
  - request: POST /v1/card/freeze
    body: { cardId: "{{card}}" }
  - request: POST /v1/card/create
    body: { amount: 20, currency: USDT }
  - request: POST /v1/card/list
    expect: { body: { cardList: [{}, {}] } }
`;

beforeAll(async () => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'isolation-'));
  sandbox = await startSandbox(KEY, { SANDBOX_SEED_BALANCE: '100' });
  // The partner's own account: a card and a webhook of its own.
  await post('/v1/card/create', { amount: 30, currency: 'USDT', alias: 'mine' });
  await post('/v1/webhook', { url: 'http://127.0.0.1:9/partner-hooks', enabled: true }, 'PUT');
});
afterAll(async () => {
  if (sandbox) await stop(sandbox);
  rmSync(dir, { recursive: true, force: true });
});

describe('runs against a running sandbox with only an API key', () => {
  it('scenario run and verify --allow-mutations leave the caller’s cards, balance and webhook exactly as they were, runs at once not seeing each other', async () => {
    const before = await accountState();
    expect(before.cards).toHaveLength(1);
    for (const run of ['a', 'b']) {
      mkdirSync(join(dir, run));
      for (const n of [1, 2, 3]) writeFileSync(join(dir, run, `alone-${n}.yaml`), ALONE(`${run}${n}`));
    }
    const scenario = (sub: string) =>
      runCli(['scenario', 'run', join(dir, sub), '--base-url', sandbox.url, '--api-key', KEY, '--concurrency', '1']);
    const [a, b] = await Promise.all([scenario('a'), scenario('b')]);
    const verify = await runCli(['verify', '--base-url', sandbox.url, '--api-key', KEY, '--allow-mutations']);
    expect(a.code, a.stdout + a.stderr).toBe(0);
    expect(b.code, b.stdout + b.stderr).toBe(0);
    expect(a.stdout).toMatch(/3 passed, 0 failed, 3 files/);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/Ran in child sandbox acct_\w+, deleted after the run/);
    expect(await accountState()).toEqual(before);
    expect(before.children).toEqual([]);
  });

  it('the repository scenarios that need no operator token pass in children, the caller’s account untouched', async () => {
    const before = await accountState();
    const files = ['card-lifecycle.yaml', 'webhooks.yaml', 'transactions.yaml'].map((f) => join(ROOT, 'scenarios', f));
    const r = await runCli(['scenario', 'run', ...files, '--base-url', sandbox.url, '--api-key', KEY]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await accountState()).toEqual(before);
  });
});
