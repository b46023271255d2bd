import type { Db } from './seam.js';
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
export async function depositRow(db: Db, accountId: string, txId: string): Promise<DepositRow | undefined> {
  return (await db.get('SELECT * FROM chain_deposits WHERE account_id = ? AND tx_id = ?', [accountId, txId])) as
    DepositRow | undefined;
}

/** A deposit seen on chain, numbered after the account's last one. */
export async function insertDeposit(db: Db, d: Omit<DepositRow, 'credited_at_ms'>): Promise<void> {
  const seq = await nextSeq(db, `chain:${d.account_id}`);
  await db.run(
    `INSERT INTO chain_deposits (tx_id, account_id, address, from_address, amount_micros, initial_confirmations,
       created_at_ms, credits_at_ms, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      d.tx_id,
      d.account_id,
      d.address,
      d.from_address,
      d.amount_micros,
      d.initial_confirmations,
      d.created_at_ms,
      d.credits_at_ms,
      seq,
    ],
  );
}

export async function markDepositCredited(db: Db, accountId: string, txId: string, atMs: number): Promise<void> {
  await db.run('UPDATE chain_deposits SET credited_at_ms = ? WHERE account_id = ? AND tx_id = ?', [
    atMs,
    accountId,
    txId,
  ]);
}

/** Deposits of the account, newest first. */
export async function depositRowsOf(db: Db, accountId: string): Promise<DepositRow[]> {
  return (await db.all('SELECT * FROM chain_deposits WHERE account_id = ? ORDER BY seq DESC', [
    accountId,
  ])) as DepositRow[];
}

/**
 * USDT seen on chain but not yet confirmed. A store query of its own so that both the chain module (the wallet's
 * frozenAmount) and the accounts module (the entry cap counts pending deposits) read it without importing each other.
 */
export async function pendingDepositsMicros(db: Db, accountId: string): Promise<number> {
  return (await db.value(
    'SELECT COALESCE(SUM(amount_micros), 0) FROM chain_deposits WHERE account_id = ? AND credited_at_ms IS NULL',
    [accountId],
  )) as number;
}

/**
 * The wallet's balance (its ledger account, `walletId`; 0 when it never moved) and the USDT pending on chain, in one
 * read: what wallet/assetList shows.
 */
export async function walletAndPendingMicros(
  db: Db,
  accountId: string,
  walletId: string,
): Promise<{ available: number; pending: number }> {
  return (await db.get(
    `SELECT COALESCE((SELECT balance_micros FROM ledger_accounts WHERE id = ?), 0) AS available,
       (SELECT COALESCE(SUM(amount_micros), 0) FROM chain_deposits WHERE account_id = ? AND credited_at_ms IS NULL)
         AS pending`,
    [walletId, accountId],
  )) as { available: number; pending: number };
}

/** Part of the sandbox reset: the account's deposits and their numbering. */
export async function resetDeposits(db: Db, accountId: string): Promise<void> {
  await db.run('DELETE FROM chain_deposits WHERE account_id = ?', [accountId]);
  await db.run('DELETE FROM seq_counters WHERE scope = ?', [`chain:${accountId}`]);
}
