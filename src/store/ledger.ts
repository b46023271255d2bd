import type { Db } from './seam.js';

// SQL of the double-entry ledger: append-only transfer rows, and each ledger account's balance kept as a counter
// updated in the same transaction.

export interface TransferRow {
  account_id: string;
  debit_id: string;
  credit_id: string;
  amount_micros: number;
  /** What the movement is: `card.create`, `topup.settle`, `auth.hold`, ... */
  reason: string;
  ref: string | null;
  created_at_ms: number;
}

export async function insertTransfer(db: Db, t: TransferRow): Promise<void> {
  await db.run(insertTransfersSql(1), transferValues([t]));
}

const insertTransfersSql = (n: number) =>
  `INSERT INTO transfers (account_id, debit_id, credit_id, amount_micros, reason, ref, created_at_ms)
     VALUES ${Array.from({ length: n }, () => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`;
const transferValues = (rows: readonly TransferRow[]) =>
  rows.flatMap((t) => [t.account_id, t.debit_id, t.credit_id, t.amount_micros, t.reason, t.ref, t.created_at_ms]);

// The balance after a move is read as text: a move the ledger then refuses may take it past 2^53 - 1 (two moves of
// the largest amount), which PostgreSQL's driver would refuse to read at all (a 500 instead of the ledger's 400).
// Past that the number is not exact, and need not be: the ledger refuses anything beyond MAX_BALANCE_MICROS.
const BALANCE_AFTER = 'CAST(balance_micros AS TEXT) AS balance_micros';

/**
 * Adds `deltaMicros` (negative for a debit) to the ledger account's balance, creating the account (at 0) if it has
 * never moved; answers the balance after. One statement where opening and updating took two.
 */
export async function moveLedgerAccount(
  db: Db,
  id: string,
  accountId: string,
  kind: string,
  deltaMicros: number,
): Promise<number> {
  return Number(
    await db.value(
      `INSERT INTO ledger_accounts (id, account_id, kind, balance_micros) VALUES (@id, @accountId, @kind, @delta)
       ON CONFLICT (id) DO UPDATE SET balance_micros = ledger_accounts.balance_micros + @delta
       RETURNING ${BALANCE_AFTER}`,
      { id, accountId, kind, delta: deltaMicros },
    ),
  );
}

/**
 * `moveLedgerAccount` for several ledger accounts (each id once), and the transfer rows that record the moves:
 * answers `[id, balance after]` of each account, in no particular order. PostgreSQL takes both in one statement (the
 * rows' references to the accounts are checked at its end, once the accounts exist); SQLite, which cannot write in
 * a WITH, in two. A caller that refuses a balance throws, and its transaction takes both back.
 */
export async function moveLedgerAccountsRecorded(
  db: Db,
  moves: readonly { id: string; accountId: string; kind: string; deltaMicros: number }[],
  rows: readonly TransferRow[],
): Promise<[string, number][]> {
  const move = `INSERT INTO ledger_accounts (id, account_id, kind, balance_micros)
     VALUES ${moves.map(() => '(?, ?, ?, ?)').join(', ')}
     ON CONFLICT (id) DO UPDATE SET balance_micros = ledger_accounts.balance_micros + excluded.balance_micros
     RETURNING id, ${BALANCE_AFTER}`;
  const moved = moves.flatMap((m) => [m.id, m.accountId, m.kind, m.deltaMicros]);
  const record = insertTransfersSql(rows.length);
  let after: { id: string; balance_micros: string }[];
  if (db.dialect === 'postgres') {
    after = await db.all(`WITH recorded AS (${record}) ${move}`, [...transferValues(rows), ...moved]);
  } else {
    after = await db.all(move, moved);
    await db.run(record, transferValues(rows));
  }
  return after.map((r) => [r.id, Number(r.balance_micros)]);
}

/** The ledger account's balance; undefined when it has never moved. */
export async function ledgerBalance(db: Db, id: string): Promise<number | undefined> {
  return (await db.value('SELECT balance_micros FROM ledger_accounts WHERE id = ?', [id])) as number | undefined;
}

/**
 * `[id, balance]` of those of the ledger accounts that exist, in one statement: a listing reads 40 balances for
 * 20 cards, and one statement costs less than 40 primary-key reads each crossing into SQLite.
 */
export async function ledgerBalances(db: Db, ids: readonly string[]): Promise<[string, number][]> {
  const rows = await db.all<{ id: string; balance_micros: number }>(
    db.dialect === 'postgres'
      ? // PostgreSQL has no json_each: the ids as one text array parameter.
        'SELECT id, balance_micros FROM ledger_accounts WHERE id = ANY(?::text[])'
      : 'SELECT id, balance_micros FROM ledger_accounts WHERE id IN (SELECT value FROM json_each(?))',
    [db.dialect === 'postgres' ? ids : JSON.stringify(ids)],
  );
  return rows.map((r) => [r.id, r.balance_micros]);
}
