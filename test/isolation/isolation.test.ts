import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createDeps } from '../../src/wiring.js';
import { createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

// Another account's id must be indistinguishable from an id that does not exist (spec: 4001 "no such card for
// the account"; docs/design.md section 5: "never reveal that it exists"). Checked on every POST route of /v1 and
// /sandbox/v1 read from the app, so a route added later is covered without editing this file.

const UNKNOWN = {
  cardId: '2026060100000000000000',
  transactionId: 'txn_000000000000000000000000',
  challengeId: 'tds_000000000000000000000000',
};
const CARD_ROUTES = ['detail', 'asset', 'deposit', 'sensitiveInfo', 'freeze', 'unfreeze', 'cancel'].map(
  (p) => `/v1/card/${p}`,
);

let sb: TestSandbox;
let a: AccountHandle;
let b: AccountHandle;
const theirs: Record<string, string> = {};
let routes: string[];

async function stateOf(accountId: string): Promise<string> {
  const db = sb.deps.store;
  return JSON.stringify([
    await db.all('SELECT * FROM cards WHERE account_id = ? ORDER BY id', [accountId]),
    await db.all('SELECT id, balance_micros FROM ledger_accounts WHERE account_id = ? ORDER BY id', [accountId]),
    await db.all('SELECT * FROM transactions WHERE account_id = ? ORDER BY id', [accountId]),
    await db.value('SELECT COUNT(*) FROM events WHERE account_id = ?', [accountId]),
  ]);
}

/** Fields that make a body valid enough to reach the existence check on any route. */
const filler = { amount: 1, currency: 'USDT', type: 'payment', otp: '000000', pageNumber: 1, pageSize: 20 };

beforeAll(async () => {
  sb = createTestSandbox();
  a = await sb.account({ balance: 100 });
  b = await sb.account({ balance: 100 });
  theirs.cardId = (await sb.post(b.apiKey, '/v1/card/create', { amount: 20, currency: 'USDT' })).body.cardId;
  // The route list comes from an app of its own (on its own in-memory store), not from the one under test.
  const probe = createDeps({ config: sb.config });
  routes = [
    ...new Set(
      createApp(probe)
        .routes.filter((r) => r.method === 'POST')
        .map((r) => r.path),
    ),
  ].filter((p) => p.startsWith('/v1/') || p.startsWith('/sandbox/v1/'));
  await probe.store.close();
  // Another account's transaction and 3DS challenge too: both routes must exist and answer (a 404 fails here).
  const auth = await sb.post(b.apiKey, '/sandbox/v1/card/authorize', { cardId: theirs.cardId, amount: 1 });
  expect(auth.body.transactionId, JSON.stringify(auth.body)).toMatch(/^txn_/);
  theirs.transactionId = auth.body.transactionId;
  const chl = await sb.post(b.apiKey, '/sandbox/v1/card/3ds', { cardId: theirs.cardId, type: 'payment' });
  expect(chl.body.challengeId, JSON.stringify(chl.body)).toMatch(/^tds_/);
  theirs.challengeId = chl.body.challengeId;
});
afterAll(() => sb.close());

describe("isolation: another account's ids", () => {
  it.each(CARD_ROUTES.map((p) => [p]))(
    "%s with another account's cardId fails with 4001, as an unknown card does",
    async (path) => {
      const res = await sb.post(a.apiKey, path, { ...filler, cardId: theirs.cardId });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 4001, message: 'Card not found' });
    },
  );

  it("bill/list with another account's cardId fails with 4001, as an unknown card does", async () => {
    const res = await sb.post(a.apiKey, '/v1/bill/list', { cardId: theirs.cardId });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 4001, message: 'Card not found' });
  });

  it("card/list and bill/list of one account never show another account's card", async () => {
    const list = await sb.post(a.apiKey, '/v1/card/list', {});
    expect(JSON.stringify(list.body)).not.toContain(theirs.cardId);
    const bills = await sb.post(a.apiKey, '/v1/bill/list', {});
    expect(bills.body.totalElements).toBe(0);
  });

  it("every POST route answers another account's ids exactly as it answers ids that do not exist, and leaves that account untouched", async () => {
    const before = await stateOf(b.accountId);
    const checked: string[] = [];
    for (const path of routes) {
      // Routes that reset or move the caller's own world are left out: they take no id of another account.
      if (path === '/sandbox/v1/reset' || path === '/v1/card/create') continue;
      const unknown = await sb.post(a.apiKey, path, { ...filler, ...UNKNOWN });
      if (unknown.status < 400) continue; // the route takes none of these ids
      const other = await sb.post(a.apiKey, path, { ...filler, ...UNKNOWN, ...theirs });
      expect({ path, status: other.status, body: other.body }).toEqual({
        path,
        status: unknown.status,
        body: unknown.body,
      });
      checked.push(path);
    }
    expect(checked).toEqual(expect.arrayContaining([...CARD_ROUTES, '/v1/bill/list']));
    expect(await stateOf(b.accountId)).toBe(before);
  });
});
