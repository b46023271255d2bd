import { describe, expect } from 'vitest';
import { cardAsset, expectConserved, expectRefusedUnchanged, newCard, sim, walletAvailable } from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { authorize } from '../helpers/card-network.js';

// A clearing is never declined, so a card can go below zero (docs/design.md section 15). While it is at or below
// zero it declines every authorisation; a deposit covers the debt first; cancelling it pays the debt from the USDT
// wallet, or is refused with 3001. The ledger stays conserved throughout.

let sb: TestSandbox;
let acct: AccountHandle;
let key: string;
let cardId: string;

/** A card of 50 whose force post of 80 left it 30 in debt; the wallet then holds 950 USDT. */
it.beforeEach(async ({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  key = acct.apiKey;
  cardId = await newCard(sb, key, 50);
  expect((await sim(sb, key, 'transaction/force-post', { cardId, amount: 80 })).status).toBe(200);
});

describe('a card below zero', () => {
  it('shows its debt as a negative available balance in card/asset, card/list and card/detail', async () => {
    expect(await cardAsset(sb, key, cardId)).toEqual({ availableAmount: '-30', frozenAmount: '0', currency: 'USD' });
    const [listed] = (await sb.post(key, '/v1/card/list', {})).body.cardList;
    expect([listed.availableBalance, listed.frozenAmount]).toEqual([-30, 0]);
    const detail = (await sb.post(key, '/v1/card/detail', { cardId })).body;
    expect([detail.availableBalance, detail.frozenAmount]).toEqual([-30, 0]);
    await expectConserved(sb.deps, acct.accountId);
  });

  it('declines every authorisation INSUFFICIENT_FUNDS while at or below zero, a verification of 0 included', async () => {
    for (const amount of [5, 0]) {
      expect((await authorize(sb, key, cardId, { amount })).body).toMatchObject({
        status: 'DECLINED',
        declineReason: 'INSUFFICIENT_FUNDS',
      });
    }
    await sb.post(key, '/v1/card/deposit', { cardId, amount: 30 });
    await sb.advance(key, 3);
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '0' });
    expect((await authorize(sb, key, cardId, { amount: 0 })).body).toMatchObject({
      status: 'DECLINED',
      declineReason: 'INSUFFICIENT_FUNDS',
    });
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '0', frozenAmount: '0' });
  });

  it('declines an increment while at or below zero, and changes nothing', async () => {
    await sb.post(key, '/v1/card/deposit', { cardId, amount: 40 });
    await sb.advance(key, 3);
    const id = (await authorize(sb, key, cardId, { amount: 10 })).body.transactionId;
    await sim(sb, key, 'transaction/force-post', { cardId, amount: 20 });
    const res = await expectRefusedUnchanged(sb, 200, () =>
      sim(sb, key, 'transaction/increment', { transactionId: id, amount: 1 }),
    );
    expect(res.body).toMatchObject({ status: 'DECLINED', declineReason: 'INSUFFICIENT_FUNDS' });
  });

  it('is covered first by a deposit: the card credit pays the debt, the rest is available', async () => {
    await sb.post(key, '/v1/card/deposit', { cardId, amount: 45 });
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '-30' });
    await sb.advance(key, 3);
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '15', frozenAmount: '0' });
    expect((await authorize(sb, key, cardId, { amount: 15 })).body.status).toBe('PENDING');
    expect(await walletAvailable(sb, key)).toBe('905');
    await expectConserved(sb.deps, acct.accountId);
  });

  it('is cancelled by paying its debt from the USDT wallet: the card ends at 0, nothing comes back', async () => {
    expect((await sb.post(key, '/v1/card/cancel', { cardId })).body).toEqual({ code: 0, message: 'ok' });
    expect(await walletAvailable(sb, key)).toBe('920');
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '0', frozenAmount: '0' });
    await sb.advance(key, 5);
    expect((await sb.post(key, '/v1/card/detail', { cardId })).body.cardStatus).toBe('CANCELLED');
    expect(await walletAvailable(sb, key)).toBe('920');
    await expectConserved(sb.deps, acct.accountId);
  });

  it('is not cancelled when the USDT wallet cannot pay its debt: 3001, and nothing changes', async () => {
    await sim(sb, key, 'transaction/force-post', { cardId, amount: 920.01 });
    const res = await expectRefusedUnchanged(sb, 400, () => sb.post(key, '/v1/card/cancel', { cardId }));
    expect(res.body).toEqual({
      code: 3001,
      message: 'Your balance is too low for this action. Please add funds to your wallet and try again.',
    });
    await sim(sb, key, 'wallet/seed', { amount: 0.01 });
    expect((await sb.post(key, '/v1/card/cancel', { cardId })).status).toBe(200);
    expect(await walletAvailable(sb, key)).toBe('0');
  });
});
