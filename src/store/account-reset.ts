import type { Db } from './seam.js';

/**
 * Part of the sandbox reset: the account's cards, money, transactions, events, timers, traffic runs, idempotency keys and BIN
 * inventory overrides, with the counters that number them. Its API keys, clock and webhook endpoint stay. Runs
 * after the modules' own reset hooks (deliveries, deposits, challenges, faults), whose rows may refer to cards and
 * transactions.
 */
export async function resetAccountRows(db: Db, accountId: string): Promise<void> {
  for (const table of [
    'transactions',
    'card_day_spend',
    'topups',
    'events',
    'jobs',
    'idempotency_keys',
    'account_bin_inventory',
    'traffic_runs',
  ]) {
    await db.run(`DELETE FROM ${table} WHERE account_id = ?`, [accountId]);
  }
  await db.run('DELETE FROM transfers WHERE account_id = ?', [accountId]);
  await db.run('DELETE FROM ledger_accounts WHERE account_id = ?', [accountId]);
  await db.run(
    `DELETE FROM seq_counters WHERE scope IN (?, ?) OR scope LIKE ? OR
       scope IN (SELECT 'txn-card:' || id FROM cards WHERE account_id = ?)`,
    [`txn:${accountId}`, `cards:${accountId}`, `txn-bin:${accountId}:%`, accountId],
  );
  await db.run('DELETE FROM cards WHERE account_id = ?', [accountId]);
}
