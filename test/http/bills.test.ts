import { describe, expect } from 'vitest';
import { newCard, seedTransaction } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { START_MS, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let acct: AccountHandle;
let cardId: string;

it.beforeEach(async ({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  cardId = await newCard(sb, acct.apiKey, 50);
});

const list = (body: Record<string, unknown>) => sb.post(acct.apiKey, '/v1/bill/list', body);

/** n transactions one minute apart; id `t<i>` with i = 1 the oldest. */
async function seedMany(n: number, card = cardId) {
  for (let i = 1; i <= n; i++)
    await seedTransaction(sb, acct.accountId, card, { id: `t${i}_${card.slice(-4)}`, atMs: START_MS + i * 60_000 });
}

describe('bill/list pagination', () => {
  it('with no matches answers an empty array, totalElements 0, totalPages 0, last true', async () => {
    const res = await list({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, message: 'ok', transactions: [], last: true, totalPages: 0, totalElements: 0 });
  });

  it('defaults to the first page of 20, newest first', async () => {
    await seedMany(45);
    const res = await list({});
    expect(res.body.transactions).toHaveLength(20);
    expect(res.body).toMatchObject({ last: false, totalPages: 3, totalElements: 45 });
    expect(res.body.transactions[0].transactionTime).toBe(new Date(START_MS + 45 * 60_000).toISOString());
    expect(res.body.transactions[19].transactionTime).toBe(new Date(START_MS + 26 * 60_000).toISOString());
  });

  it('the last page holds the remainder and says last', async () => {
    await seedMany(45);
    const res = await list({ pageNumber: 3, pageSize: 20 });
    expect(res.body.transactions).toHaveLength(5);
    expect(res.body.last).toBe(true);
    expect(res.body.transactions[4].transactionTime).toBe(new Date(START_MS + 60_000).toISOString());
  });

  it('a pageNumber beyond the last page returns the last page, not an error', async () => {
    await seedMany(45);
    const last = await list({ pageNumber: 3 });
    const beyond = await list({ pageNumber: 999 });
    expect(beyond.status).toBe(200);
    expect(beyond.body).toEqual(last.body);
  });

  it('pageSize 1 and 100 are the bounds', async () => {
    await seedMany(101);
    const one = await list({ pageSize: 1 });
    expect(one.body).toMatchObject({ totalPages: 101, totalElements: 101, last: false });
    expect(one.body.transactions).toHaveLength(1);
    const hundred = await list({ pageSize: 100, pageNumber: 2 });
    expect(hundred.body.transactions).toHaveLength(1);
    expect(hundred.body.last).toBe(true);
  });

  it('pages cover every transaction exactly once', async () => {
    await seedMany(23);
    const seen: string[] = [];
    for (let p = 1; p <= 5; p++) {
      const res = await list({ pageNumber: p, pageSize: 5 });
      seen.push(...res.body.transactions.map((t: { transactionTime: string }) => t.transactionTime));
    }
    expect(new Set(seen).size).toBe(23);
  });

  it.each([
    [{ pageSize: 0 }, /pageSize must be an integer between 1 and 100/],
    [{ pageSize: 101 }, /pageSize must be an integer between 1 and 100/],
    [{ pageSize: 2.5 }, /pageSize/],
    [{ pageSize: '20' }, /pageSize/],
    [{ pageNumber: 0 }, /pageNumber must be an integer/],
    [{ pageNumber: -1 }, /pageNumber/],
    [{ pageNumber: '1' }, /pageNumber/],
    [{ cardId: 5 }, /cardId must be a string/],
    [{ binId: false }, /binId must be a string/],
  ])('rejects %j with 400', async (body, message) => {
    const res = await list(body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toMatch(message);
  });
});

describe('bill/list rows and filters', () => {
  it('shows signed two-decimal amounts, ISO UTC times, USD and the listing status', async () => {
    const rows = [
      { id: 'a', amountMicros: 12_500_000, status: 'CLEARED', merchant: 'COFFEE' },
      { id: 'b', amountMicros: 3_000_000, status: 'PENDING' },
      { id: 'c', amountMicros: 1_000_000, status: 'DECLINED' },
      { id: 'd', amountMicros: 2_000_000, status: 'CANCELLED' },
      { id: 'e', amountMicros: 2_250_000, status: 'REFUND', kind: 'REFUND' },
      { id: 'f', amountMicros: 0, status: 'CLEARED' },
    ] as const;
    for (const [i, row] of rows.entries()) {
      await seedTransaction(sb, acct.accountId, cardId, { ...row, atMs: START_MS + (i + 1) * 1000 });
    }
    const res = await list({ cardId });
    expect(res.body.transactions.map((t: { amount: string; status: string }) => [t.amount, t.status])).toEqual([
      ['0.00', 'COMPLETED'],
      ['2.25', 'REVERTED'],
      ['-2.00', 'REVERTED'],
      ['-1.00', 'FAILED'],
      ['-3.00', 'PENDING'],
      ['-12.50', 'COMPLETED'],
    ]);
    expect(res.body.transactions[5]).toEqual({
      transactionTime: '2026-06-01T00:00:01.000Z',
      merchant: 'COFFEE',
      amount: '-12.50',
      currency: 'USD',
      status: 'COMPLETED',
    });
  });

  it('restricts to one card with cardId, and to a BIN with binId when cardId is omitted', async () => {
    await sb.admin('put', '/admin/v1/bins/OTHER-BIN', { bin: '411111' });
    const other = await newCard(sb, acct.apiKey, 10, { binId: 'OTHER-BIN' });
    await seedMany(3, cardId);
    await seedMany(2, other);
    expect((await list({})).body.totalElements).toBe(5);
    expect((await list({ cardId })).body.totalElements).toBe(3);
    expect((await list({ cardId: other })).body.totalElements).toBe(2);
    expect((await list({ binId: 'OTHER-BIN' })).body.totalElements).toBe(2);
    expect((await list({ binId: 'VISA-EFI-454924' })).body.totalElements).toBe(3);
    expect((await list({ binId: 'NO-BIN' })).body.code).toBe(4004);
  });

  it('fails with 4001 for an unknown cardId', async () => {
    const res = await list({ cardId: '2026060100000000000000' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(4001);
  });
});
