import { describe, expect } from 'vitest';
import { cardAsset, expectConserved, expectRefusedUnchanged, newCard, sim, walletAvailable } from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { TestSandbox } from '../helpers/sandbox.js';

// The money bound holds on every path (docs/hosted.md, "Money, tenants and strict input"): what enters an account
// from outside its books (seeds, chain deposits, refunds with no purchase) stops at 5,000,000,000 USDT, and no balance
// goes past 5,000,000,000 either way, whatever moves it (a force post, a clearing for more, a refund, a deposit).
// Each refusal is a 400 naming the bound that changes nothing; every read goes on answering 200 with exact amounts.

const ENTERED = /the USDT entered into this account .* past 5000000000, the sandbox limit/;
const BALANCE = (what: string, side: 'below -5000000000' | 'past 5000000000') =>
  new RegExp(`^amount would take ${what} ${side}, the most any balance of the sandbox holds either way`);

/** card/asset, card/detail, card/list and wallet/assetList answer 200. */
async function readsAnswer(sb: TestSandbox, key: string, cardId: string): Promise<void> {
  for (const [path, body] of [
    ['/v1/card/asset', { cardId }],
    ['/v1/card/detail', { cardId }],
    ['/v1/card/list', {}],
    ['/v1/wallet/assetList', {}],
  ] as const) {
    const res = await sb.post(key, path, body);
    expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
  }
}

/** Every ledger balance of the account, as stored. */
const storedBalances = (sb: TestSandbox, accountId: string) =>
  sb.deps.store.column<number>('SELECT balance_micros FROM ledger_accounts WHERE account_id = ?', [accountId]);

/** Sends `path` ten times with the same body, then an eleventh that must be refused unchanged; answers both. */
async function tenThenOneMore(sb: TestSandbox, key: string, path: string, body: Record<string, unknown>) {
  const statuses = [];
  for (let i = 0; i < 10; i++) statuses.push((await sim(sb, key, path, body)).status);
  const past = await expectRefusedUnchanged(sb, 400, () => sim(sb, key, path, body));
  return { statuses, past };
}

describe('the money bound on every path', () => {
  it('refunds with no purchase count as money entering: ten of 1e9 stop at the cap, and reads stay 200', async ({
    sb,
    acct,
  }) => {
    const key = acct.apiKey;
    const cardId = await newCard(sb, key, 10);
    const { statuses, past } = await tenThenOneMore(sb, key, 'transaction/refund', { cardId, amount: 1e9 });
    // 1,000 seeded + 4e9 of goodwill is within 5e9; a fifth would pass it.
    expect(statuses).toEqual([200, 200, 200, 200, 400, 400, 400, 400, 400, 400]);
    expect(past.body.message).toMatch(ENTERED);
    await readsAnswer(sb, key, cardId);
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '4000000010' });
    // The same cap as a seed's: a seed that would pass it is refused too.
    expect((await sim(sb, key, 'wallet/seed', { amount: 1e9 })).body.message).toMatch(ENTERED);
    await expectConserved(sb.deps, acct.accountId);
  });

  it('force posts: ten of 1e9 take a card down to the bound and no further, and reads stay 200', async ({
    sb,
    acct,
  }) => {
    const key = acct.apiKey;
    const cardId = await newCard(sb, key, 10);
    const { statuses, past } = await tenThenOneMore(sb, key, 'transaction/force-post', { cardId, amount: 1e9 });
    expect(statuses).toEqual([200, 200, 200, 200, 200, 400, 400, 400, 400, 400]);
    expect(past.body).toEqual({
      code: 400,
      message: expect.stringMatching(BALANCE("the card's available balance", 'below -5000000000')),
    });
    await readsAnswer(sb, key, cardId);
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '-4999999990' });
    await expectConserved(sb.deps, acct.accountId);
  });

  it('clearings for more than the hold stop at the same bound', async ({ sb, acct }) => {
    const key = acct.apiKey;
    const cardId = await newCard(sb, key, 10);
    // Six holds of 1 while the card still has money, then each cleared for 1e9 (a tip far past the hold).
    const holds: string[] = [];
    for (let i = 0; i < 6; i++)
      holds.push((await sim(sb, key, 'card/authorize', { cardId, amount: 1 })).body.transactionId);
    const clear = (transactionId: string) => sim(sb, key, 'transaction/clear', { transactionId, amount: 1e9 });
    for (const id of holds.slice(0, 5)) expect((await clear(id)).status).toBe(200);
    const past = await expectRefusedUnchanged(sb, 400, () => clear(holds[5]));
    // Its first movement, the hold to the merchant, is what passes first: the cards have spent 5e9 already.
    expect(past.body.message).toMatch(BALANCE("what this account's cards have spent", 'past 5000000000'));
    // 10 - 6 held - 5 x (1e9 - 1) taken beyond the holds; the sixth still holds 1.
    expect(await cardAsset(sb, key, cardId)).toEqual({
      availableAmount: '-4999999991',
      frozenAmount: '1',
      currency: 'USD',
    });
    await readsAnswer(sb, key, cardId);
    await expectConserved(sb.deps, acct.accountId);
  });

  it('a refund to a cancelled card goes to the USDT balance, within the cap', async ({ sb, acct }) => {
    const key = acct.apiKey;
    for (let i = 0; i < 4; i++) await sim(sb, key, 'wallet/seed', { amount: 1e9 });
    const cardId = await newCard(sb, key, 10);
    expect((await sb.post(key, '/v1/card/cancel', { cardId })).status).toBe(200);
    await sb.advance(key, 10);
    expect((await sim(sb, key, 'transaction/refund', { cardId, amount: 999_999_000 })).status).toBe(200);
    expect(await walletAvailable(sb, key)).toBe('5000000000');
    const past = await expectRefusedUnchanged(sb, 400, () =>
      sim(sb, key, 'transaction/refund', { cardId, amount: 0.01 }),
    );
    expect(past.body.message).toMatch(ENTERED);
    await readsAnswer(sb, key, cardId);
    await expectConserved(sb.deps, acct.accountId);
  });

  it('a deposit that covers a debt, and deposits up to the cap, keep every balance exact', async ({ sb, acct }) => {
    const key = acct.apiKey;
    for (let i = 0; i < 4; i++) await sim(sb, key, 'wallet/seed', { amount: 1e9 });
    const cardId = await newCard(sb, key, 10);
    await sim(sb, key, 'transaction/force-post', { cardId, amount: 1e9 });
    for (let i = 0; i < 4; i++) {
      const res = await sb.post(key, '/v1/card/deposit', { cardId, amount: 9e8, currency: 'USDT' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      await sb.advance(key, 60);
    }
    await readsAnswer(sb, key, cardId);
    for (const b of await storedBalances(sb, acct.accountId)) expect(Math.abs(b)).toBeLessThanOrEqual(5e15);
    await expectConserved(sb.deps, acct.accountId);
  });

  it('no stored balance ever passes what a JSON number holds exactly, whatever is refused on the way', async ({
    sb,
    acct,
  }) => {
    const key = acct.apiKey;
    const cardId = await newCard(sb, key, 10);
    const other = await newCard(sb, key, 10);
    for (let i = 0; i < 8; i++) {
      await sim(sb, key, 'transaction/force-post', { cardId, amount: 1e9 });
      await sim(sb, key, 'transaction/refund', { cardId: other, amount: 1e9 });
      await sim(sb, key, 'wallet/seed', { amount: 1e9 });
      for (const b of await storedBalances(sb, acct.accountId))
        expect(Number.isSafeInteger(b) && Math.abs(b) <= 5e15).toBe(true);
    }
    await readsAnswer(sb, key, cardId);
    await readsAnswer(sb, key, other);
    await expectConserved(sb.deps, acct.accountId);
  });
});
