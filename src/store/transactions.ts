import type { Db } from './seam.js';
import { currentSeq, nextSeq } from './sequences.js';

// SQL of card transactions (spends and refunds) and of the bill/list pages over them.

export type TxnStatus = 'PENDING' | 'CLEARED' | 'DECLINED' | 'CANCELLED' | 'REFUND';
/** @internal exported for the tests that seed transaction rows */
export type TxnKind = 'SPEND' | 'REFUND';

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
export async function insertTransaction(db: Db, t: NewTxn): Promise<void> {
  await db.run(
    `INSERT INTO transactions (id, account_id, card_id, bin_id, kind, status, bill_amount_micros, bill_currency,
       transaction_amount_micros, transaction_currency, hold_micros, cleared_micros, refunded_micros, merchant_name,
       merchant_country, mcc_category, decline_reason, parent_id, created_at_ms, settled_at_ms, acct_seq, card_seq, bin_seq)
     VALUES (@id, @account_id, @card_id, @bin_id, @kind, @status, @bill_amount_micros, @bill_currency,
       @transaction_amount_micros, @transaction_currency, @hold_micros, @cleared_micros, @refunded_micros,
       @merchant_name, @merchant_country, @mcc_category, @decline_reason, @parent_id, @created_at_ms, @settled_at_ms,
       @acct_seq, @card_seq, @bin_seq)`,
    {
      hold_micros: 0,
      cleared_micros: 0,
      refunded_micros: 0,
      settled_at_ms: null,
      bill_currency: 'USD',
      ...t,
      acct_seq: await nextSeq(db, `txn:${t.account_id}`),
      card_seq: await nextSeq(db, `txn-card:${t.card_id}`),
      bin_seq: await nextSeq(db, `txn-bin:${t.account_id}:${t.bin_id}`),
    },
  );
}

export async function findTransaction(db: Db, accountId: string, id: string): Promise<TxnRow | undefined> {
  return (await db.get('SELECT * FROM transactions WHERE id = ? AND account_id = ?', [id, accountId])) as
    TxnRow | undefined;
}

/** Whether the card has an authorisation still PENDING. */
export async function hasPendingAuthorisation(db: Db, cardId: string): Promise<boolean> {
  return (
    (await db.get("SELECT 1 FROM transactions WHERE card_id = ? AND status = 'PENDING' LIMIT 1", [cardId])) !==
    undefined
  );
}

/** The card's PENDING authorisations, oldest first, at most `limit`, and how many there are in all. */
export async function pendingAuthorisations(
  db: Db,
  cardId: string,
  limit: number,
): Promise<{ rows: Pick<TxnRow, 'id' | 'created_at_ms'>[]; total: number }> {
  const rows = (await db.all(
    "SELECT id, created_at_ms FROM transactions WHERE card_id = ? AND status = 'PENDING' ORDER BY created_at_ms, id LIMIT ?",
    [cardId, limit],
  )) as Pick<TxnRow, 'id' | 'created_at_ms'>[];
  const total = (await db.value("SELECT COUNT(*) FROM transactions WHERE card_id = ? AND status = 'PENDING'", [
    cardId,
  ])) as number;
  return { rows, total };
}

/**
 * Bill amounts of the card's PENDING and CLEARED spends created in the UTC day starting at `dayStartMs`: the running
 * total the triggers of migration 65 keep, one read however long the card's history.
 */
export async function spentOnDayMicros(db: Db, accountId: string, cardId: string, dayStartMs: number): Promise<number> {
  return ((await db.value(
    'SELECT spent_micros FROM card_day_spend WHERE account_id = ? AND card_id = ? AND day_start_ms = ?',
    [accountId, cardId, dayStartMs],
  )) ?? 0) as number;
}

/** Writes a PENDING transaction's final state (a transaction no longer PENDING is left as it is). */
export async function settleTransactionRow(db: Db, next: TxnRow): Promise<void> {
  await db.run(
    `UPDATE transactions SET status = @status, settled_at_ms = @settled_at_ms, bill_amount_micros = @bill_amount_micros,
       transaction_amount_micros = @transaction_amount_micros, cleared_micros = @cleared_micros,
       decline_reason = @decline_reason WHERE id = @id AND status = 'PENDING'`,
    next,
  );
}

/**
 * A PENDING authorisation's amounts after an increment, a partial reversal or a partial clearing: its bill amount
 * is its hold, and the merchant amount follows. False when it was no longer PENDING.
 */
export async function setPendingAmounts(
  db: Db,
  id: string,
  amounts: { billMicros: number; transactionMicros: number },
): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE transactions SET bill_amount_micros = @bill, hold_micros = @bill, transaction_amount_micros = @txn
         WHERE id = @id AND status = 'PENDING'`,
      { id, bill: amounts.billMicros, txn: amounts.transactionMicros },
    )) === 1
  );
}

export async function addRefunded(db: Db, id: string, amountMicros: number): Promise<void> {
  await db.run('UPDATE transactions SET refunded_micros = refunded_micros + ? WHERE id = ?', [amountMicros, id]);
}

export type BillScope = { cardId: string } | { accountId: string; binId: string } | { accountId: string };

/** The columns a bill/list row shows: selecting only these made a 20-row page about 4x cheaper than `*`. */
const BILL_COLUMNS = 'id, kind, status, bill_amount_micros, bill_currency, merchant_name, created_at_ms';
export type BillRow = Pick<
  TxnRow,
  'id' | 'kind' | 'status' | 'bill_amount_micros' | 'bill_currency' | 'merchant_name' | 'created_at_ms'
>;

/** A listing's sequence counter, the column numbering its rows, and the rows' filter with its parameters. */
function billIndex(scope: BillScope): [string, string, string, string[]] {
  return 'cardId' in scope
    ? [`txn-card:${scope.cardId}`, 'card_seq', 'card_id = ?', [scope.cardId]]
    : 'binId' in scope
      ? [
          `txn-bin:${scope.accountId}:${scope.binId}`,
          'bin_seq',
          'account_id = ? AND bin_id = ?',
          [scope.accountId, scope.binId],
        ]
      : [`txn:${scope.accountId}`, 'acct_seq', 'account_id = ?', [scope.accountId]];
}

/** How many rows the listing has: its sequence numbers are dense, 1..count. */
export async function billCount(db: Db, scope: BillScope): Promise<number> {
  return await currentSeq(db, billIndex(scope)[0]);
}

/** The listing's rows numbered `low` to `high`, newest first: one indexed range read however deep the page. */
export async function billRows(db: Db, scope: BillScope, low: number, high: number): Promise<BillRow[]> {
  const [, column, where, params] = billIndex(scope);
  return (await db.all(
    `SELECT ${BILL_COLUMNS} FROM transactions WHERE ${where} AND ${column} BETWEEN ? AND ? ORDER BY ${column} DESC`,
    [...params, low, high],
  )) as BillRow[];
}
