import { describe, expect } from 'vitest';
import { insertTransaction, type TxnKind, type TxnStatus } from '../../src/store/transactions.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { START_MS, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let acct: AccountHandle;
let cardId: string;

it.beforeEach(async ({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  cardId = (await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' })).body.cardId;
});

/** Rows written as the simulation module writes them (bill/list only reads; the rows' origin is not its concern). */
async function seed(rows: { kind: TxnKind; status: TxnStatus; micros: number; merchant: string }[]) {
  await sb.deps.transactions.run(async (deps) => {
    for (const [i, r] of rows.entries())
      await insertTransaction(deps.db, {
        id: `txn_${String(i).padStart(24, '0')}`,
        account_id: acct.accountId,
        card_id: cardId,
        bin_id: 'VISA-EFI-454924',
        kind: r.kind,
        status: r.status,
        bill_amount_micros: r.micros,
        transaction_amount_micros: r.micros,
        transaction_currency: 'USD',
        merchant_name: r.merchant,
        merchant_country: 'US',
        mcc_category: 'Retail',
        decline_reason: null,
        parent_id: null,
        created_at_ms: START_MS + i * 1000,
      });
  });
}

describe('bill/list rows (read with only the listed columns)', () => {
  it('lists newest first with signed two-decimal amounts, the listing status and the merchant', async () => {
    await seed([
      { kind: 'SPEND', status: 'CLEARED', micros: 12_500_000, merchant: 'First' },
      { kind: 'SPEND', status: 'PENDING', micros: 1_000_000, merchant: 'Second' },
      { kind: 'REFUND', status: 'REFUND', micros: 2_000_000, merchant: 'Third' },
    ]);
    const res = await sb.post(acct.apiKey, '/v1/bill/list', { cardId, pageSize: 2 });
    expect(res.body).toEqual({
      code: 0,
      message: 'ok',
      transactions: [
        {
          transactionTime: new Date(START_MS + 2000).toISOString(),
          merchant: 'Third',
          amount: '2.00',
          currency: 'USD',
          status: 'REVERTED',
        },
        {
          transactionTime: new Date(START_MS + 1000).toISOString(),
          merchant: 'Second',
          amount: '-1.00',
          currency: 'USD',
          status: 'PENDING',
        },
      ],
      last: false,
      totalPages: 2,
      totalElements: 3,
    });
    const last = await sb.post(acct.apiKey, '/v1/bill/list', { pageNumber: 9, pageSize: 2 });
    expect(last.body.transactions).toEqual([
      expect.objectContaining({ merchant: 'First', amount: '-12.50', status: 'COMPLETED' }),
    ]);
    expect(last.body.last).toBe(true);
  });
});
