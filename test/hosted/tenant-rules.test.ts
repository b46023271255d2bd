import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

// One cap on the money that enters an account (so no stored sum can break a read),
// chain txIds scoped to their tenant, and strict headers and paging.

let sb: TestSandbox;
beforeAll(() => {
  sb = createTestSandbox();
});
afterAll(() => sb.close());

const LIMIT_MESSAGE =
  'amount would take the USDT entered into this account (seeded, sent on chain with pending included, or ' +
  'refunded with no purchase) past 5000000000, the sandbox limit; reset the account';
const txId = (c: string) => c.repeat(64);
const withAddress = () => sb.account({ depositAddress: 'auto' });

async function transferOnChain(acct: AccountHandle, amount: number, extra: Record<string, unknown> = {}) {
  return sb.post(acct.apiKey, '/sandbox/v1/chain/transfer', { amount, ...extra });
}

describe('one cap on the money entering an account, enforced on every credit path with a 400', () => {
  it('chain/transfer past the cap is a 400, pending deposits included; reads stay 200', async () => {
    const acct = await withAddress();
    for (let i = 0; i < 3; i++) expect((await transferOnChain(acct, 1e9)).status).toBe(200); // pending
    await transferOnChain(acct, 1e9, { confirmations: 19 });
    const fifth = await transferOnChain(acct, 1e9, { confirmations: 19 });
    expect(fifth.status).toBe(200);
    const past = await transferOnChain(acct, 0.000001, { confirmations: 19 });
    expect(past.status).toBe(400);
    expect(past.body).toEqual({ code: 400, message: LIMIT_MESSAGE });
    const assets = await sb.post(acct.apiKey, '/v1/wallet/assetList', {});
    expect(assets.status).toBe(200);
    expect(assets.body.assetList[0]).toMatchObject({ availableAmount: '2000000000', frozenAmount: '3000000000' });
  });

  it('twelve chain transfers of 1e9 stop at the cap; assetList never answers 500', async () => {
    const acct = await withAddress();
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await transferOnChain(acct, 1e9, { confirmations: 19 })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 400, 400, 400, 400, 400, 400, 400]);
    expect((await sb.post(acct.apiKey, '/v1/wallet/assetList', {})).status).toBe(200);
  });

  it('wallet/seed, account creation and reset share the cap with chain deposits', async () => {
    const acct = await withAddress();
    for (let i = 0; i < 4; i++) expect((await transferOnChain(acct, 1e9)).status).toBe(200);
    const seed = await sb.post(acct.apiKey, '/sandbox/v1/wallet/seed', { amount: 1_000_000_000.000001 });
    expect(seed.status).toBe(400);
    expect((await sb.post(acct.apiKey, '/sandbox/v1/wallet/seed', { amount: 1e9 })).status).toBe(200);
    expect((await sb.post(acct.apiKey, '/sandbox/v1/wallet/seed', { amount: 0.000001 })).body).toEqual({
      code: 400,
      message: LIMIT_MESSAGE,
    });
    // reset empties the account, pending deposits included, then seeds: the cap counts from zero again.
    expect((await sb.post(acct.apiKey, '/sandbox/v1/reset', { balance: 1e9 })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await transferOnChain(acct, 1e9)).status).toBe(200);
    expect((await transferOnChain(acct, 0.000001)).body).toEqual({ code: 400, message: LIMIT_MESSAGE });
  });

  it('a card funded with nearly the whole cap reads 200 on card/list, card/asset and card/detail', async () => {
    const acct = await sb.account({ depositAddress: null, balance: 1e9 });
    for (let i = 0; i < 4; i++) await sb.post(acct.apiKey, '/sandbox/v1/wallet/seed', { amount: 1e9 });
    const card = await sb.post(acct.apiKey, '/v1/card/create', { amount: 9e8, currency: 'USDT' });
    expect(card.status, JSON.stringify(card.body)).toBe(200);
    const { cardId } = card.body;
    for (let i = 0; i < 4; i++) {
      const res = await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 9e8, currency: 'USDT' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await sb.advance(acct.apiKey, 60); // one top-up settles before the next (4007 while one is settling)
    }
    for (const path of ['/v1/card/list', '/v1/card/asset', '/v1/card/detail', '/v1/wallet/assetList']) {
      expect(
        (await sb.post(acct.apiKey, path, path.includes('/card/') && !path.endsWith('list') ? { cardId } : {})).status,
        path,
      ).toBe(200);
    }
    expect((await sb.post(acct.apiKey, '/sandbox/v1/wallet/seed', { amount: 1e9 })).status).toBe(400);
  });
});

describe('chain txIds are scoped to their tenant', () => {
  it("another tenant's txId neither collides nor shows: both transfers succeed, each lists only its own", async () => {
    const a = await withAddress();
    const b = await withAddress();
    expect((await transferOnChain(b, 5, { txId: txId('a') })).status).toBe(200);
    const mine = await transferOnChain(a, 7, { txId: txId('a'), confirmations: 19 });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ txId: txId('a'), amount: '7', status: 'CONFIRMED' });
    const listed = (acct: AccountHandle) => sb.post(acct.apiKey, '/sandbox/v1/chain/deposits', {});
    expect((await listed(a)).body.deposits.map((d: { amount: string }) => d.amount)).toEqual(['7']);
    expect((await listed(b)).body.deposits.map((d: { amount: string }) => d.amount)).toEqual(['5']);
  });

  it('a txId already on chain in the same account is still a 400', async () => {
    const a = await withAddress();
    expect((await transferOnChain(a, 5, { txId: txId('b') })).status).toBe(200);
    expect((await transferOnChain(a, 5, { txId: txId('B') })).body).toEqual({
      code: 400,
      message: 'txId is already on chain',
    });
  });

  it("a pending deposit confirms into its own tenant's wallet when another tenant holds the same txId", async () => {
    const a = await withAddress();
    const b = await withAddress();
    await transferOnChain(a, 3, { txId: txId('c') });
    await transferOnChain(b, 4, { txId: txId('c') });
    await sb.advance(a.apiKey, 60);
    await sb.advance(b.apiKey, 60);
    const available = async (acct: AccountHandle) =>
      (await sb.post(acct.apiKey, '/v1/wallet/assetList', {})).body.assetList[0].availableAmount;
    expect([await available(a), await available(b)]).toEqual(['3', '4']);
  });
});

describe('strict headers and paging', () => {
  it.each(['bearer', 'BEARER', 'Bearer', 'bEaReR'])(
    'takes the operator token with the auth scheme written %s (case-insensitive, RFC 7235)',
    async (scheme) => {
      const res = await request(sb.server)
        .post('/admin/v1/accounts')
        .set('Authorization', `${scheme} ${ADMIN_TOKEN}`)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ depositAddress: null }));
      expect(res.status).toBe(201);
    },
  );

  it('refuses two Idempotency-Key headers with a 400, never joining them into one key', async () => {
    const acct = await sb.account({ depositAddress: null, balance: 100 });
    const res = await request(sb.server)
      .post('/v1/card/create')
      .set('X-API-KEY', acct.apiKey)
      .set('Content-Type', 'application/json')
      .set('Idempotency-Key', ['a1', 'a2'] as unknown as string) // supertest sends an array as two headers
      .send(JSON.stringify({ amount: 10, currency: 'USDT' }));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: 'Idempotency-Key must be sent once' });
    expect(res.headers['idempotency-key']).toBeUndefined();
    expect((await sb.post(acct.apiKey, '/v1/card/list', {})).body.cardList).toEqual([]);
  });

  it.each([0, -1, '1', 1.5])('bill/list refuses pageNumber %j with a 400 (an integer >= 1)', async (pageNumber) => {
    const acct = await sb.account({ depositAddress: null });
    const res = await sb.post(acct.apiKey, '/v1/bill/list', { pageNumber });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 400,
      message: `pageNumber must be an integer between 1 and ${Number.MAX_SAFE_INTEGER}`,
    });
  });
});
