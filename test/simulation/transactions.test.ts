import { describe, expect } from 'vitest';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { cardAsset, newCard, eventsOf, fundedAccount, sim } from '../helpers/core.js';
import { authorize } from '../helpers/card-network.js';

let sb: TestSandbox;
let acct: AccountHandle;
let key: string;
let cardId: string;

it.beforeEach(async ({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  key = acct.apiKey;
  cardId = await newCard(sb, key, 100);
});

const bills = async () => (await sb.post(key, '/v1/bill/list', { cardId })).body.transactions;

describe('card/authorize', () => {
  it('holds the amount: available moves to frozen and the transaction is PENDING', async () => {
    const res = await authorize(sb, key, cardId, {
      amount: 12.5,
      merchantName: 'Coffee',
      merchantCountry: 'US',
      mccCategory: 'Food',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ code: 0, status: 'PENDING', billAmount: 12.5 });
    expect(res.body.transactionId).toMatch(/^txn_[0-9A-Za-z]{24}$/);
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '87.5', frozenAmount: '12.5' });
    expect(await bills()).toEqual([
      {
        transactionTime: '2026-06-01T00:00:00.000Z',
        merchant: 'Coffee',
        amount: '-12.50',
        currency: 'USD',
        status: 'PENDING',
      },
    ]);
  });

  it("emits transaction.created with every field of the spec's transaction event data", async () => {
    const res = await authorize(sb, key, cardId, {
      amount: 12.5,
      merchantName: 'Coffee',
      merchantCountry: 'US',
      mccCategory: 'Food',
    });
    const [event] = await eventsOf(sb, acct.accountId, 'transaction.created');
    expect(event!.data).toEqual({
      transactionId: res.body.transactionId,
      cardId,
      status: 'PENDING',
      billAmount: 12.5,
      billCurrency: 'USD',
      transactionAmount: 12.5,
      transactionCurrency: 'USD',
      merchantName: 'Coffee',
      merchantCountry: 'US',
      mccCategory: 'Food',
      eventType: 'SPEND',
      settledAt: '2026-06-01T00:00:00',
    });
  });

  it('fills merchant name, country and category from faker when omitted, the same for the same transaction id', async () => {
    const res = await authorize(sb, key, cardId, { amount: 1 });
    expect(res.body.merchantName).toEqual(expect.any(String));
    expect(res.body.merchantCountry).toMatch(/^[A-Z]{2}$/);
    expect(res.body.mccCategory).toEqual(expect.any(String));
    const { merchantFor } = await import('../../src/domain/network/merchants.js');
    expect(await merchantFor(res.body.transactionId, {})).toEqual({
      merchantName: res.body.merchantName,
      merchantCountry: res.body.merchantCountry,
      mccCategory: res.body.mccCategory,
    });
  });

  it.each([
    ['INSUFFICIENT_FUNDS', { amount: 100.01 }],
    ['DO_NOT_HONOR', { amount: 1, declineReason: 'DO_NOT_HONOR' }],
  ])('declines with %s: created PENDING then DECLINED, nothing held, listed FAILED', async (reason, body) => {
    const res = await authorize(sb, key, cardId, body);
    expect(res.body).toMatchObject({ status: 'DECLINED', declineReason: reason });
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '100', frozenAmount: '0' });
    const events = (await eventsOf(sb, acct.accountId)).filter((e) => e.type.startsWith('transaction.'));
    expect(events.map((e) => [e.type, e.data.status, e.data.previousStatus])).toEqual([
      ['transaction.created', 'PENDING', undefined],
      ['transaction.updated', 'DECLINED', 'PENDING'],
    ]);
    expect((await bills())[0].status).toBe('FAILED');
  });

  it('declines CARD_NOT_ACTIVE on a frozen card', async () => {
    await sb.post(key, '/v1/card/freeze', { cardId });
    expect((await authorize(sb, key, cardId, { amount: 1 })).body).toMatchObject({
      status: 'DECLINED',
      declineReason: 'CARD_NOT_ACTIVE',
    });
  });

  it('declines DAILY_LIMIT_EXCEEDED past the BIN spendDaily within a UTC day, and allows it the next day', async () => {
    await sb.admin('put', '/admin/v1/bins/VISA-EFI-454924', { limit: { spendDaily: '30', minimalDeposit: '1' } });
    expect((await authorize(sb, key, cardId, { amount: 20 })).body.status).toBe('PENDING');
    expect((await authorize(sb, key, cardId, { amount: 10.01 })).body).toMatchObject({
      status: 'DECLINED',
      declineReason: 'DAILY_LIMIT_EXCEEDED',
    });
    expect((await authorize(sb, key, cardId, { amount: 10 })).body.status).toBe('PENDING');
    await sb.advance(key, 24 * 3600);
    expect((await authorize(sb, key, cardId, { amount: 10 })).body.status).toBe('PENDING');
  });

  it('converts a foreign currency with the fixed rate table and adds fee.fx to billAmount', async () => {
    const res = await authorize(sb, key, cardId, { amount: 100, currency: 'EUR' });
    // 100 EUR * 1.08 * 1.006 = 108.648 -> 108.65
    expect(res.body.billAmount).toBe(108.65);
    const [event] = await eventsOf(sb, acct.accountId, 'transaction.created');
    expect(event!.data).toMatchObject({
      billAmount: 108.65,
      billCurrency: 'USD',
      transactionAmount: 100,
      transactionCurrency: 'EUR',
    });
  });

  it('approves an authorisation of 0 without a hold, cleared at once and listed 0.00 COMPLETED', async () => {
    expect((await authorize(sb, key, cardId, { amount: 0 })).body.status).toBe('CLEARED');
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '100', frozenAmount: '0' });
    expect((await bills())[0]).toMatchObject({ amount: '0.00', status: 'COMPLETED' });
  });

  it.each([
    [{ amount: -1 }, 'amount must be'],
    [{ amount: 1.001 }, 'amount must be'],
    [{ amount: 1, currency: 'XYZ' }, 'currency must be one of'],
    [{ amount: 1, declineReason: 'NOPE' }, 'declineReason must be one of'],
    [{ amount: 1, merchantCountry: 'usa' }, 'merchantCountry'],
  ])('rejects %j with 400 naming the field', async (body, message) => {
    const res = await authorize(sb, key, cardId, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toContain(message);
  });

  it("answers 4001 for an unknown card or another account's card", async () => {
    const other = await fundedAccount(sb);
    const res = await authorize(sb, other.apiKey, cardId, { amount: 1 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(4001);
  });
});

describe('transaction/clear', () => {
  it('clearing for less consumes the hold and releases the rest; listed COMPLETED with the cleared amount', async () => {
    const { transactionId } = (await authorize(sb, key, cardId, { amount: 40 })).body;
    const res = await sim(sb, key, 'transaction/clear', { transactionId, amount: 30 });
    expect(res.status).toBe(200);
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '70', frozenAmount: '0' });
    expect((await bills())[0]).toMatchObject({ amount: '-30.00', status: 'COMPLETED' });
    const updated = await eventsOf(sb, acct.accountId, 'transaction.updated');
    expect(updated.map((e) => e.data)).toEqual([
      expect.objectContaining({
        transactionId,
        status: 'CLEARED',
        previousStatus: 'PENDING',
        billAmount: 30,
        transactionAmount: 30,
      }),
    ]);
  });

  it('clearing for more (a tip) takes the extra from available, and beyond hold + available takes the card below zero', async () => {
    const { transactionId } = (await authorize(sb, key, cardId, { amount: 40 })).body;
    expect((await sim(sb, key, 'transaction/clear', { transactionId, amount: 45 })).status).toBe(200);
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '55', frozenAmount: '0' });
    const second = (await authorize(sb, key, cardId, { amount: 50 })).body.transactionId;
    const beyond = await sim(sb, key, 'transaction/clear', { transactionId: second, amount: 105.01 });
    expect(beyond.body).toEqual({
      code: 0,
      message: 'ok',
      transactionId: second,
      status: 'CLEARED',
      billAmount: 105.01,
    });
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '-50.01', frozenAmount: '0' });
  });

  it('moves once: clearing a reversed transaction is 400 naming the current state, and nothing changes', async () => {
    const { transactionId } = (await authorize(sb, key, cardId, { amount: 40 })).body;
    await sim(sb, key, 'transaction/reverse', { transactionId });
    const res = await sim(sb, key, 'transaction/clear', { transactionId });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 400,
      message: 'transaction is CANCELLED: only a PENDING transaction can be cleared',
    });
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '100', frozenAmount: '0' });
    expect(await eventsOf(sb, acct.accountId, 'transaction.updated')).toHaveLength(1);
  });

  it('answers 400 for an unknown transaction id', async () => {
    const res = await sim(sb, key, 'transaction/clear', { transactionId: 'txn_nope' });
    expect(res.body).toEqual({ code: 400, message: 'transaction not found' });
  });
});

describe('transaction/reverse', () => {
  it('releases the hold, CANCELLED in events and REVERTED in the listing', async () => {
    const { transactionId } = (await authorize(sb, key, cardId, { amount: 40 })).body;
    expect((await sim(sb, key, 'transaction/reverse', { transactionId })).status).toBe(200);
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '100', frozenAmount: '0' });
    expect((await bills())[0]).toMatchObject({ amount: '-40.00', status: 'REVERTED' });
    expect((await eventsOf(sb, acct.accountId, 'transaction.updated'))[0]!.data).toMatchObject({
      status: 'CANCELLED',
      previousStatus: 'PENDING',
    });
  });

  it('happens automatically 7 days of account time after an authorisation that was never cleared', async () => {
    const { transactionId } = (await authorize(sb, key, cardId, { amount: 40 })).body;
    await sb.advance(key, 7 * 24 * 3600 - 1);
    expect((await bills())[0].status).toBe('PENDING');
    await sb.advance(key, 1);
    expect((await bills())[0].status).toBe('REVERTED');
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '100', frozenAmount: '0' });
    const [updated] = await eventsOf(sb, acct.accountId, 'transaction.updated');
    expect(updated!.data).toMatchObject({ transactionId, status: 'CANCELLED', settledAt: '2026-06-08T00:00:00' });
  });
});

describe('transaction/refund', () => {
  it('credits the card with a new transaction, REFUND in events, listed REVERTED with a positive amount', async () => {
    const { transactionId } = (await authorize(sb, key, cardId, { amount: 40 })).body;
    await sim(sb, key, 'transaction/clear', { transactionId });
    const res = await sim(sb, key, 'transaction/refund', { transactionId, amount: 15 });
    expect(res.status).toBe(200);
    expect(res.body.transactionId).not.toBe(transactionId);
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '75', frozenAmount: '0' });
    expect((await bills())[0]).toMatchObject({ amount: '15.00', status: 'REVERTED' });
    const refundEvents = (await eventsOf(sb, acct.accountId)).filter(
      (e) => e.data.transactionId === res.body.transactionId,
    );
    expect(refundEvents.map((e) => [e.type, e.data.status, e.data.eventType, e.data.billAmount])).toEqual([
      ['transaction.created', 'PENDING', 'REFUND', 15],
      ['transaction.updated', 'REFUND', 'REFUND', 15],
    ]);
  });

  it('never refunds more than was cleared, in total', async () => {
    const { transactionId } = (await authorize(sb, key, cardId, { amount: 40 })).body;
    await sim(sb, key, 'transaction/clear', { transactionId, amount: 30 });
    expect((await sim(sb, key, 'transaction/refund', { transactionId, amount: 30.01 })).status).toBe(400);
    expect((await sim(sb, key, 'transaction/refund', { transactionId, amount: 20 })).status).toBe(200);
    const over = await sim(sb, key, 'transaction/refund', { transactionId, amount: 10.01 });
    expect(over.body).toEqual({ code: 400, message: 'amount exceeds what remains refundable (10)' });
    expect((await sim(sb, key, 'transaction/refund', { transactionId })).status).toBe(200);
    expect((await sim(sb, key, 'transaction/refund', { transactionId })).body.message).toBe(
      'transaction is already fully refunded',
    );
    expect(await cardAsset(sb, key, cardId)).toMatchObject({ availableAmount: '100' });
  });

  it('refuses to refund a pending transaction, naming its state', async () => {
    const { transactionId } = (await authorize(sb, key, cardId, { amount: 40 })).body;
    const res = await sim(sb, key, 'transaction/refund', { transactionId });
    expect(res.body).toEqual({ code: 400, message: 'transaction is PENDING: only a CLEARED purchase can be refunded' });
  });

  it('sends a refund to a cancelled card to the USDT wallet', async () => {
    const { transactionId } = (await authorize(sb, key, cardId, { amount: 40 })).body;
    await sim(sb, key, 'transaction/clear', { transactionId });
    await sb.post(key, '/v1/card/cancel', { cardId });
    await sb.advance(key, 5);
    await sim(sb, key, 'transaction/refund', { transactionId });
    const wallet = (await sb.post(key, '/v1/wallet/assetList', {})).body.assetList[0];
    expect(wallet.availableAmount).toBe('1000');
  });
});
