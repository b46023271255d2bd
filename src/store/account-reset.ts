import { sql, type Db } from './db.js';

/**
 * Part of the sandbox reset: the account's cards, money, transactions, events, timers, traffic runs, idempotency keys and BIN
 * inventory overrides, with the counters that number them. Its API keys, clock and webhook endpoint stay. Runs
 * after the modules' own reset hooks (deliveries, deposits, challenges, faults), whose rows may refer to cards and
 * transactions.
 */
export function resetAccountRows(db: Db, accountId: string): void {
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
    sql(db, `DELETE FROM ${table} WHERE account_id = ?`).run(accountId);
  }
  sql(db, 'DELETE FROM transfers WHERE account_id = ?').run(accountId);
  sql(db, 'DELETE FROM ledger_accounts WHERE account_id = ?').run(accountId);
  sql(
    db,
    `DELETE FROM seq_counters WHERE scope IN (?, ?) OR scope LIKE ? OR
       scope IN (SELECT 'txn-card:' || id FROM cards WHERE account_id = ?)`,
  ).run(`txn:${accountId}`, `cards:${accountId}`, `txn-bin:${accountId}:%`, accountId);
  sql(db, 'DELETE FROM cards WHERE account_id = ?').run(accountId);
}
