import { describe, expect } from 'vitest';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { newCard, sim } from '../helpers/core.js';
import { authorize } from '../helpers/card-network.js';

// docs/design.md sections 6 and 11 (Card transactions, Finer points).
let sb: TestSandbox;
let acct: AccountHandle;
let cardId: string;

it.beforeEach(async ({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  cardId = await newCard(sb, acct.apiKey, 100);
});

const bills = async () =>
  (await sb.post(acct.apiKey, '/v1/bill/list', { cardId })).body.transactions as Record<string, unknown>[];

describe('bill/list transactionTime and order', () => {
  it('transactionTime is the moment first seen and never changes; ties are broken by creation order, later first', async () => {
    const first = (await authorize(sb, acct.apiKey, cardId, { amount: 10 })).body.transactionId;
    await authorize(sb, acct.apiKey, cardId, { amount: 20 });
    const seenAt = (await bills()).map((t) => t.transactionTime);
    expect(seenAt[0]).toBe(seenAt[1]);
    await sb.advance(acct.apiKey, 3600);
    await sim(sb, acct.apiKey, 'transaction/clear', { transactionId: first });
    const rows = await bills();
    // Rows carry no id: the amounts tell them apart (the second authorisation, 20, is listed first).
    expect(rows.map((t) => [t.amount, t.status])).toEqual([
      ['-20.00', 'PENDING'],
      ['-10.00', 'COMPLETED'],
    ]);
    expect(rows.map((t) => t.transactionTime)).toEqual(seenAt);
  });
});

describe('the daily spend window', () => {
  it('refunds do not give room back in the daily window', async () => {
    await sb.admin('put', '/admin/v1/bins/VISA-EFI-454924', { limit: { spendDaily: '30', minimalDeposit: '1' } });
    const { transactionId } = (await authorize(sb, acct.apiKey, cardId, { amount: 30 })).body;
    await sim(sb, acct.apiKey, 'transaction/clear', { transactionId });
    expect((await sim(sb, acct.apiKey, 'transaction/refund', { transactionId })).status).toBe(200);
    expect((await authorize(sb, acct.apiKey, cardId, { amount: 1 })).body).toMatchObject({
      status: 'DECLINED',
      declineReason: 'DAILY_LIMIT_EXCEEDED',
    });
  });

  it('a declined or reversed authorisation does not count against the window', async () => {
    await sb.admin('put', '/admin/v1/bins/VISA-EFI-454924', { limit: { spendDaily: '30', minimalDeposit: '1' } });
    await authorize(sb, acct.apiKey, cardId, { amount: 5, declineReason: 'DO_NOT_HONOR' });
    const { transactionId } = (await authorize(sb, acct.apiKey, cardId, { amount: 30 })).body;
    await sim(sb, acct.apiKey, 'transaction/reverse', { transactionId });
    expect((await authorize(sb, acct.apiKey, cardId, { amount: 30 })).body.status).toBe('PENDING');
  });
});

describe('refunds', () => {
  it('a refund without an amount refunds what remains of the clearing', async () => {
    const { transactionId } = (await authorize(sb, acct.apiKey, cardId, { amount: 40 })).body;
    await sim(sb, acct.apiKey, 'transaction/clear', { transactionId });
    await sim(sb, acct.apiKey, 'transaction/refund', { transactionId, amount: 15 });
    const rest = await sim(sb, acct.apiKey, 'transaction/refund', { transactionId });
    expect(rest.status).toBe(200);
    expect((await bills())[0]).toMatchObject({ amount: '25.00', status: 'REVERTED' });
    expect((await sim(sb, acct.apiKey, 'transaction/refund', { transactionId })).status).toBe(400);
  });
});
