import { assertInTransaction, sql } from '../store/db.js';
import { seedBalance } from './accounts.js';
import { resetDeposits } from './chain.js';
import type { Deps } from './deps.js';
import { clearFaults } from './faults.js';
import { resetChallenges } from './threeds.js';
import { resetDeliveries } from './webhook-deliveries.js';

/**
 * sandbox reset: wipes the account's world (cards, money, transactions, events, timers, idempotency keys) but keeps
 * its API keys, clock and webhook endpoint; then seeds `balanceMicros` when given.
 */
export function resetAccount(deps: Deps, accountId: string, balanceMicros: number, nowMs: number): void {
  const { db } = deps;
  assertInTransaction(db, 'resetAccount');
  // Modules first: their rows may refer to cards and transactions.
  resetDeliveries(db, accountId);
  resetDeposits(db, accountId);
  resetChallenges(db, accountId);
  clearFaults(db, accountId);
  for (const table of ['transactions', 'topups', 'events', 'jobs', 'idempotency_keys', 'account_bin_inventory']) {
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
  if (balanceMicros > 0) seedBalance(deps, accountId, balanceMicros, nowMs);
}
