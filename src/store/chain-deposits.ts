import { sql, type Db } from './db.js';
import { nextSeq } from './sequences.js';

// SQL of simulated TRC20 USDT deposits.

export interface DepositRow {
  tx_id: string;
  account_id: string;
  address: string;
  from_address: string;
  amount_micros: number;
  initial_confirmations: number;
  created_at_ms: number;
  credits_at_ms: number;
  credited_at_ms: number | null;
}

// A txId names a deposit within one account: another tenant's ids can be neither probed nor squatted.
export function depositRow(db: Db, accountId: string, txId: string): DepositRow | undefined {
  return sql(db, 'SELECT * FROM chain_deposits WHERE account_id = ? AND tx_id = ?').get(accountId, txId) as
    DepositRow | undefined;
}

/** A deposit seen on chain, numbered after the account's last one. */
export function insertDeposit(db: Db, d: Omit<DepositRow, 'credited_at_ms'>): void {
  const seq = nextSeq(db, `chain:${d.account_id}`);
  sql(
    db,
    `INSERT INTO chain_deposits (tx_id, account_id, address, from_address, amount_micros, initial_confirmations,
       created_at_ms, credits_at_ms, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    d.tx_id,
    d.account_id,
    d.address,
    d.from_address,
    d.amount_micros,
    d.initial_confirmations,
    d.created_at_ms,
    d.credits_at_ms,
    seq,
  );
}

export function markDepositCredited(db: Db, accountId: string, txId: string, atMs: number): void {
  sql(db, 'UPDATE chain_deposits SET credited_at_ms = ? WHERE account_id = ? AND tx_id = ?').run(atMs, accountId, txId);
}

/** Deposits of the account, newest first. */
export function depositRowsOf(db: Db, accountId: string): DepositRow[] {
  return sql(db, 'SELECT * FROM chain_deposits WHERE account_id = ? ORDER BY seq DESC').all(accountId) as DepositRow[];
}

/**
 * USDT seen on chain but not yet confirmed. A store query of its own so that both the chain module (the wallet's
 * frozenAmount) and the accounts module (the entry cap counts pending deposits) read it without importing each other.
 */
export function pendingDepositsMicros(db: Db, accountId: string): number {
  return sql(
    db,
    'SELECT COALESCE(SUM(amount_micros), 0) FROM chain_deposits WHERE account_id = ? AND credited_at_ms IS NULL',
  )
    .pluck()
    .get(accountId) as number;
}

/** Part of the sandbox reset: the account's deposits and their numbering. */
export function resetDeposits(db: Db, accountId: string): void {
  sql(db, 'DELETE FROM chain_deposits WHERE account_id = ?').run(accountId);
  sql(db, 'DELETE FROM seq_counters WHERE scope = ?').run(`chain:${accountId}`);
}
