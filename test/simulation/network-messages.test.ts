import { describe, expect } from 'vitest';
import { cardAsset, eventsOf, expectConserved, expectRefusedUnchanged, newCard, sim } from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { pendingAuthorization } from '../helpers/card-network.js';

// The card network's hard cases (docs/design.md section 15), one rule per test: each message's answer (the
// transaction it made or changed), the events it sends (each carrying the transaction's whole state after the
// change), the card's balances, the bill/list rows, and the account's ledger conserved.

let sb: TestSandbox;
let acct: AccountHandle;
let key: string;
let cardId: string;
/** How many events the account had before the step under test: `sent()` answers the ones after. */
let mark = 0;

it.beforeEach(async ({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  key = acct.apiKey;
  cardId = await newCard(sb, key, 100);
});

const bills = async (card = cardId) =>
  ((await sb.post(key, '/v1/bill/list', { cardId: card })).body.transactions as Record<string, unknown>[]).map((r) => [
    r.status,
    r.amount,
  ]);
const asset = async () => {
  const a = await cardAsset(sb, key, cardId);
  return [a.availableAmount, a.frozenAmount];
};
const markEvents = async () => void (mark = (await eventsOf(sb, acct.accountId)).length);
/** The events since `markEvents()`: [type, transactionId, status, previousStatus, billAmount]. */
const sent = async () =>
  (await eventsOf(sb, acct.accountId))
    .slice(mark)
    .map((e) => [e.type, e.data.transactionId, e.data.status, e.data.previousStatus, e.data.billAmount]);

describe('transaction/increment', () => {
  it('raises a PENDING hold by the amount: transaction.updated PENDING -> PENDING with the new total, listed at the new total', async () => {
    const id = await pendingAuthorization(sb, key, cardId, { amount: 40 });
    await markEvents();
    const res = await sim(sb, key, 'transaction/increment', { transactionId: id, amount: 25.5 });
    expect(res.body).toEqual({ code: 0, message: 'ok', transactionId: id, status: 'PENDING', billAmount: 65.5 });
    expect(await sent()).toEqual([['transaction.updated', id, 'PENDING', 'PENDING', 65.5]]);
    expect(await asset()).toEqual(['34.5', '65.5']);
    expect(await bills()).toEqual([['PENDING', '-65.50']]);
    await sim(sb, key, 'transaction/clear', { transactionId: id });
    expect(await asset()).toEqual(['34.5', '0']);
    await expectConserved(sb.deps, acct.accountId);
  });

  it.each([
    ['INSUFFICIENT_FUNDS', 60.01, async (): Promise<void> => undefined],
    ['CARD_NOT_ACTIVE', 1, async (): Promise<void> => void (await sb.post(key, '/v1/card/freeze', { cardId }))],
    [
      'DAILY_LIMIT_EXCEEDED',
      1,
      async (): Promise<void> =>
        void (await sb.admin('put', '/admin/v1/bins/VISA-EFI-454924', { limit: { spendDaily: '40' } })),
    ],
  ] as const)(
    'is declined %s on the rules of an authorisation for the extra amount, and changes nothing',
    async (reason, amount, arrange) => {
      const id = await pendingAuthorization(sb, key, cardId, { amount: 40 });
      await arrange();
      const res = await expectRefusedUnchanged(sb, 200, () =>
        sim(sb, key, 'transaction/increment', { transactionId: id, amount }),
      );
      expect(res.body).toEqual({
        code: 0,
        message: 'ok',
        transactionId: id,
        status: 'DECLINED',
        billAmount: 40,
        declineReason: reason,
      });
    },
  );

  it('keeps the rate of a foreign-currency authorisation: the merchant amount grows with the bill amount', async () => {
    const id = await pendingAuthorization(sb, key, cardId, { amount: 80, currency: 'EUR' });
    await markEvents();
    await sim(sb, key, 'transaction/increment', { transactionId: id, amount: 10.87 });
    const [[, , , , bill]] = (await sent()) as [unknown[]];
    const [event] = (await eventsOf(sb, acct.accountId)).slice(mark);
    // 80 EUR bills 86.92 USD (1.08 with the 0.6 % fx fee); 10.87 USD more is 10 EUR more.
    expect([bill, event!.data.transactionAmount, event!.data.transactionCurrency]).toEqual([97.79, 90, 'EUR']);
  });

  it('refuses an increment of a transaction that is no longer PENDING, naming its state', async () => {
    const id = await pendingAuthorization(sb, key, cardId, { amount: 10 });
    await sim(sb, key, 'transaction/clear', { transactionId: id });
    const res = await expectRefusedUnchanged(sb, 400, () =>
      sim(sb, key, 'transaction/increment', { transactionId: id, amount: 1 }),
    );
    expect(res.body.message).toBe('transaction is CLEARED: only a PENDING transaction can be incremented');
  });
});

describe('transaction/reverse with an amount', () => {
  it('a partial reversal shrinks the hold and leaves the authorisation PENDING (transaction.updated PENDING -> PENDING)', async () => {
    const id = await pendingAuthorization(sb, key, cardId, { amount: 40 });
    await markEvents();
    const res = await sim(sb, key, 'transaction/reverse', { transactionId: id, amount: 15 });
    expect(res.body).toEqual({ code: 0, message: 'ok', transactionId: id, status: 'PENDING', billAmount: 25 });
    expect(await sent()).toEqual([['transaction.updated', id, 'PENDING', 'PENDING', 25]]);
    expect(await asset()).toEqual(['75', '25']);
    expect(await bills()).toEqual([['PENDING', '-25.00']]);
    await expectConserved(sb.deps, acct.accountId);
  });

  it('reversing the whole hold by amount cancels the authorisation, as a reversal without amount does', async () => {
    const id = await pendingAuthorization(sb, key, cardId, { amount: 40 });
    await sim(sb, key, 'transaction/reverse', { transactionId: id, amount: 15 });
    await markEvents();
    const res = await sim(sb, key, 'transaction/reverse', { transactionId: id, amount: 25 });
    expect(res.body).toEqual({ code: 0, message: 'ok', transactionId: id, status: 'CANCELLED', billAmount: 25 });
    expect(await sent()).toEqual([['transaction.updated', id, 'CANCELLED', 'PENDING', 25]]);
    expect(await asset()).toEqual(['100', '0']);
    expect(await bills()).toEqual([['REVERTED', '-25.00']]);
  });

  it('refuses to reverse more than the hold, and changes nothing', async () => {
    const id = await pendingAuthorization(sb, key, cardId, { amount: 40 });
    const res = await expectRefusedUnchanged(sb, 400, () =>
      sim(sb, key, 'transaction/reverse', { transactionId: id, amount: 40.01 }),
    );
    expect(res.body.message).toBe(
      "amount exceeds the authorisation's hold (40): reverse it whole by leaving amount out",
    );
  });
});

describe('transaction/clear in parts (final: false)', () => {
  it('a partial clearing is a transaction of its own, first seen CLEARED, while the authorisation stays PENDING with the rest', async () => {
    const id = await pendingAuthorization(sb, key, cardId, { amount: 60 });
    await markEvents();
    const res = await sim(sb, key, 'transaction/clear', { transactionId: id, amount: 20, final: false });
    const part = res.body.transactionId as string;
    expect(part).not.toBe(id);
    expect(res.body).toEqual({
      code: 0,
      message: 'ok',
      transactionId: part,
      status: 'CLEARED',
      billAmount: 20,
      authorization: { transactionId: id, status: 'PENDING', billAmount: 40 },
    });
    expect(await sent()).toEqual([
      ['transaction.created', part, 'CLEARED', undefined, 20],
      ['transaction.updated', id, 'PENDING', 'PENDING', 40],
    ]);
    expect(await asset()).toEqual(['40', '40']);
    expect(await bills()).toEqual([
      ['COMPLETED', '-20.00'],
      ['PENDING', '-40.00'],
    ]);
    await expectConserved(sb.deps, acct.accountId);
  });

  it('a final clearing after the parts clears the rest, and the parts stay cleared', async () => {
    const id = await pendingAuthorization(sb, key, cardId, { amount: 60 });
    await sim(sb, key, 'transaction/clear', { transactionId: id, amount: 20, final: false });
    await sim(sb, key, 'transaction/clear', { transactionId: id, amount: 15, final: false });
    await markEvents();
    const res = await sim(sb, key, 'transaction/clear', { transactionId: id, final: true });
    expect(res.body).toMatchObject({ transactionId: id, status: 'CLEARED', billAmount: 25 });
    expect(await sent()).toEqual([['transaction.updated', id, 'CLEARED', 'PENDING', 25]]);
    expect(await asset()).toEqual(['40', '0']);
    expect(await bills()).toEqual([
      ['COMPLETED', '-15.00'],
      ['COMPLETED', '-20.00'],
      ['COMPLETED', '-25.00'],
    ]);
  });

  it('a reversal, or the 7-day expiry, ends an authorisation cleared in part: the rest returns to the card', async () => {
    const reversed = await pendingAuthorization(sb, key, cardId, { amount: 30 });
    const expiring = await pendingAuthorization(sb, key, cardId, { amount: 30 });
    await sim(sb, key, 'transaction/clear', { transactionId: reversed, amount: 10, final: false });
    await sim(sb, key, 'transaction/clear', { transactionId: expiring, amount: 5, final: false });
    await sim(sb, key, 'transaction/reverse', { transactionId: reversed });
    await markEvents();
    await sb.advance(key, 7 * 24 * 3600);
    expect(await sent()).toEqual([['transaction.updated', expiring, 'CANCELLED', 'PENDING', 25]]);
    expect(await asset()).toEqual(['85', '0']);
    await expectConserved(sb.deps, acct.accountId);
  });

  it('refuses a partial clearing beyond the hold, and final: false without an amount, changing nothing', async () => {
    const id = await pendingAuthorization(sb, key, cardId, { amount: 30 });
    const beyond = await expectRefusedUnchanged(sb, 400, () =>
      sim(sb, key, 'transaction/clear', { transactionId: id, amount: 30.01, final: false }),
    );
    expect(beyond.body.message).toMatch(/^amount exceeds the authorisation's hold \(30\)/);
    const missing = await expectRefusedUnchanged(sb, 400, () =>
      sim(sb, key, 'transaction/clear', { transactionId: id, final: false }),
    );
    expect(missing.body).toEqual({ code: 400, message: 'amount is required' });
  });
});

describe('transaction/clear for more than the hold', () => {
  it('is never declined: what hold + available cannot cover takes the card below zero, listed COMPLETED at the amount', async () => {
    const id = await pendingAuthorization(sb, key, cardId, { amount: 80 });
    await markEvents();
    const res = await sim(sb, key, 'transaction/clear', { transactionId: id, amount: 130 });
    expect(res.body).toEqual({ code: 0, message: 'ok', transactionId: id, status: 'CLEARED', billAmount: 130 });
    expect(await sent()).toEqual([['transaction.updated', id, 'CLEARED', 'PENDING', 130]]);
    expect(await asset()).toEqual(['-30', '0']);
    expect(await bills()).toEqual([['COMPLETED', '-130.00']]);
    await expectConserved(sb.deps, acct.accountId);
  });
});

describe('transaction/force-post', () => {
  it('is first seen CLEARED (transaction.created, no PENDING before it), listed COMPLETED, taken from available', async () => {
    await markEvents();
    const res = await sim(sb, key, 'transaction/force-post', {
      cardId,
      amount: 35,
      merchantName: 'AIRLINE',
      merchantCountry: 'US',
      mccCategory: 'Airlines',
    });
    const id = res.body.transactionId as string;
    expect(res.body).toEqual({
      code: 0,
      message: 'ok',
      transactionId: id,
      status: 'CLEARED',
      billAmount: 35,
      billCurrency: 'USD',
      merchantName: 'AIRLINE',
      merchantCountry: 'US',
      mccCategory: 'Airlines',
    });
    expect(await sent()).toEqual([['transaction.created', id, 'CLEARED', undefined, 35]]);
    expect(await asset()).toEqual(['65', '0']);
    expect(await bills()).toEqual([['COMPLETED', '-35.00']]);
    await expectConserved(sb.deps, acct.accountId);
  });

  it('lands on a FROZEN card, below zero when the card cannot cover it, and converts a foreign currency', async () => {
    await sb.post(key, '/v1/card/freeze', { cardId });
    const res = await sim(sb, key, 'transaction/force-post', { cardId, amount: 100, currency: 'GBP' });
    // 100 GBP at 1.27 with the 0.6 % fx fee.
    expect(res.body).toMatchObject({ status: 'CLEARED', billAmount: 127.76 });
    expect(await asset()).toEqual(['-27.76', '0']);
    expect(await bills()).toEqual([['COMPLETED', '-127.76']]);
  });

  it('is refused on a CANCELLING card (4008) and on a CANCELLED one (400), changing nothing', async () => {
    await sb.post(key, '/v1/card/cancel', { cardId });
    const cancelling = await expectRefusedUnchanged(sb, 400, () =>
      sim(sb, key, 'transaction/force-post', { cardId, amount: 1 }),
    );
    expect(cancelling.body.code).toBe(4008);
    await sb.advance(key, 5);
    const cancelled = await expectRefusedUnchanged(sb, 400, () =>
      sim(sb, key, 'transaction/force-post', { cardId, amount: 1 }),
    );
    expect(cancelled.body).toEqual({ code: 400, message: 'card is cancelled' });
  });
});

describe('transaction/refund with cardId (no purchase behind it)', () => {
  it('credits the card: PENDING then REFUND, listed REVERTED with a positive amount, with no refundOf', async () => {
    await markEvents();
    const res = await sim(sb, key, 'transaction/refund', { cardId, amount: 12.5, merchantName: 'GOODWILL' });
    const id = res.body.transactionId as string;
    expect(res.body).toEqual({ code: 0, message: 'ok', transactionId: id, status: 'REFUND', billAmount: 12.5 });
    expect(await sent()).toEqual([
      ['transaction.created', id, 'PENDING', undefined, 12.5],
      ['transaction.updated', id, 'REFUND', 'PENDING', 12.5],
    ]);
    expect((await eventsOf(sb, acct.accountId)).at(-1)!.data).toMatchObject({
      eventType: 'REFUND',
      merchantName: 'GOODWILL',
    });
    expect(await asset()).toEqual(['112.5', '0']);
    expect(await bills()).toEqual([['REVERTED', '12.50']]);
    await expectConserved(sb.deps, acct.accountId);
  });

  it('goes to the USDT wallet once the card is cancelled', async () => {
    await sb.post(key, '/v1/card/cancel', { cardId });
    await sb.advance(key, 5);
    await sim(sb, key, 'transaction/refund', { cardId, amount: 10 });
    expect((await sb.post(key, '/v1/wallet/assetList', {})).body.assetList[0].availableAmount).toBe('1010');
    expect(await asset()).toEqual(['0', '0']);
    await expectConserved(sb.deps, acct.accountId);
  });

  it.each([
    [
      { amount: 1 },
      'transactionId is required (a refund of a purchase), or cardId with amount (a refund with no purchase behind it)',
    ],
    [{ cardId: 'x' }, 'amount is required'],
    [
      { transactionId: 'txn_x', cardId: 'x', amount: 1 },
      'transactionId cannot come with cardId or merchant fields: a refund of a purchase is to its card, from its merchant',
    ],
  ])('refuses %j with 400 naming the field', async (body, message) => {
    const res = await expectRefusedUnchanged(sb, 400, () => sim(sb, key, 'transaction/refund', body));
    expect(res.body).toEqual({ code: 400, message });
  });
});
