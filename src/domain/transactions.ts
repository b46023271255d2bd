import { sql, type Db } from '../store/db.js';
import { currentSeq, nextSeq } from '../store/sequences.js';
import { microsToJsonNumber } from './money.js';

export type TxnStatus = 'PENDING' | 'CLEARED' | 'DECLINED' | 'CANCELLED' | 'REFUND';
/** @internal exported for the tests that seed transaction rows */
export type TxnKind = 'SPEND' | 'REFUND';
export type ListingStatus = 'COMPLETED' | 'PENDING' | 'FAILED' | 'REVERTED';

/** Event status -> the status bill/list shows (behaviour.md section 6). */
export const LISTING_STATUS: Record<TxnStatus, ListingStatus> = {
  PENDING: 'PENDING',
  CLEARED: 'COMPLETED',
  DECLINED: 'FAILED',
  CANCELLED: 'REVERTED',
  REFUND: 'REVERTED',
};

export interface TxnRow {
  id: string;
  account_id: string;
  card_id: string;
  bin_id: string;
  kind: TxnKind;
  status: TxnStatus;
  bill_amount_micros: number;
  bill_currency: string;
  transaction_amount_micros: number;
  transaction_currency: string;
  hold_micros: number;
  cleared_micros: number;
  refunded_micros: number;
  merchant_name: string;
  merchant_country: string;
  mcc_category: string;
  decline_reason: string | null;
  parent_id: string | null;
  created_at_ms: number;
  settled_at_ms: number | null;
}

export type NewTxn = Omit<
  TxnRow,
  'hold_micros' | 'cleared_micros' | 'refunded_micros' | 'settled_at_ms' | 'bill_currency'
> &
  Partial<Pick<TxnRow, 'hold_micros' | 'cleared_micros' | 'refunded_micros' | 'settled_at_ms' | 'bill_currency'>>;

/**
 * Inserts a transaction with its dense per-account, per-card and per-BIN sequence numbers, which make every
 * bill/list page one index range. Call inside the writing transaction.
 */
export function insertTransaction(db: Db, t: NewTxn): void {
  sql(
    db,
    `INSERT INTO transactions (id, account_id, card_id, bin_id, kind, status, bill_amount_micros, bill_currency,
       transaction_amount_micros, transaction_currency, hold_micros, cleared_micros, refunded_micros, merchant_name,
       merchant_country, mcc_category, decline_reason, parent_id, created_at_ms, settled_at_ms, acct_seq, card_seq, bin_seq)
     VALUES (@id, @account_id, @card_id, @bin_id, @kind, @status, @bill_amount_micros, @bill_currency,
       @transaction_amount_micros, @transaction_currency, @hold_micros, @cleared_micros, @refunded_micros,
       @merchant_name, @merchant_country, @mcc_category, @decline_reason, @parent_id, @created_at_ms, @settled_at_ms,
       @acct_seq, @card_seq, @bin_seq)`,
  ).run({
    hold_micros: 0,
    cleared_micros: 0,
    refunded_micros: 0,
    settled_at_ms: null,
    bill_currency: 'USD',
    ...t,
    acct_seq: nextSeq(db, `txn:${t.account_id}`),
    card_seq: nextSeq(db, `txn-card:${t.card_id}`),
    bin_seq: nextSeq(db, `txn-bin:${t.account_id}:${t.bin_id}`),
  });
}

export function findTransaction(db: Db, accountId: string, id: string): TxnRow | undefined {
  return sql(db, 'SELECT * FROM transactions WHERE id = ? AND account_id = ?').get(id, accountId) as TxnRow | undefined;
}

export type BillScope = { cardId: string } | { accountId: string; binId: string } | { accountId: string };

/** The columns a bill/list row shows: selecting only these made a 20-row page about 4x cheaper than `*`. */
const BILL_COLUMNS = 'id, kind, status, bill_amount_micros, bill_currency, merchant_name, created_at_ms';
export type BillRow = Pick<
  TxnRow,
  'id' | 'kind' | 'status' | 'bill_amount_micros' | 'bill_currency' | 'merchant_name' | 'created_at_ms'
>;

export interface BillPage {
  rows: BillRow[];
  totalElements: number;
  totalPages: number;
  pageNumber: number;
  last: boolean;
}

/**
 * One page of a listing, newest first. Sequence numbers are dense, so page k of n is the seq range
 * (total - k*size, total - (k-1)*size]: one indexed range read however deep the page. A page past the last
 * answers the last page.
 */
export function listBills(db: Db, scope: BillScope, pageNumber: number, pageSize: number): BillPage {
  const [counter, column, where, params] =
    'cardId' in scope
      ? [`txn-card:${scope.cardId}`, 'card_seq', 'card_id = ?', [scope.cardId]]
      : 'binId' in scope
        ? [
            `txn-bin:${scope.accountId}:${scope.binId}`,
            'bin_seq',
            'account_id = ? AND bin_id = ?',
            [scope.accountId, scope.binId],
          ]
        : [`txn:${scope.accountId}`, 'acct_seq', 'account_id = ?', [scope.accountId]];
  const totalElements = currentSeq(db, counter);
  const totalPages = Math.ceil(totalElements / pageSize);
  if (totalElements === 0) return { rows: [], totalElements, totalPages: 0, pageNumber: 1, last: true };
  const page = Math.min(pageNumber, totalPages);
  const high = totalElements - (page - 1) * pageSize;
  const low = Math.max(1, high - pageSize + 1);
  const rows = sql(
    db,
    `SELECT ${BILL_COLUMNS} FROM transactions WHERE ${where} AND ${column} BETWEEN ? AND ? ORDER BY ${column} DESC`,
  ).all(...params, low, high) as BillRow[];
  return { rows, totalElements, totalPages, pageNumber: page, last: page === totalPages };
}

/** ISO 8601 local time without a zone, as the spec's `settledAt` (the sandbox's local time is UTC). */
function localTimestamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/**
 * The spec's "Transaction event data", every field. Amounts are positive magnitudes for every kind, as the
 * documented examples show. `settledAt` is the settlement instant, or for a PENDING transaction (not settled
 * yet) the instant it was first seen: the spec types the field as a string and never shows it absent.
 */
export function transactionEventData(t: TxnRow, previousStatus?: TxnStatus): Record<string, unknown> {
  return {
    transactionId: t.id,
    cardId: t.card_id,
    status: t.status,
    ...(previousStatus ? { previousStatus } : {}),
    billAmount: microsToJsonNumber(t.bill_amount_micros),
    billCurrency: t.bill_currency,
    transactionAmount: microsToJsonNumber(t.transaction_amount_micros),
    transactionCurrency: t.transaction_currency,
    merchantName: t.merchant_name,
    merchantCountry: t.merchant_country,
    mccCategory: t.mcc_category,
    eventType: t.kind,
    settledAt: localTimestamp(t.settled_at_ms ?? t.created_at_ms),
  };
}
