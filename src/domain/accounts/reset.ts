import { resetAccountRows } from '../../store/account-reset.js';
import { resetDeposits } from '../../store/chain-deposits.js';
import { assertInTransaction } from '../../store/db.js';
import { clearFaults } from '../../store/faults.js';
import { resetChallenges } from '../../store/threeds.js';
import { resetDeliveries } from '../../store/webhook-deliveries.js';
import { seedBalance } from './accounts.js';
import type { Deps } from '../kernel/deps.js';

/**
 * sandbox reset: wipes the account's world (cards, money, transactions, events, timers, idempotency keys) but keeps
 * its API keys, clock and webhook endpoint; then seeds `balanceMicros` when given.
 */
export async function resetAccount(deps: Deps, accountId: string, balanceMicros: number, nowMs: number): Promise<void> {
  const { db } = deps;
  assertInTransaction(db, 'resetAccount');
  // Modules first: their rows may refer to cards and transactions.
  await resetDeliveries(db, accountId);
  await resetDeposits(db, accountId);
  await resetChallenges(db, accountId);
  await clearFaults(db, accountId);
  await resetAccountRows(db, accountId);
  if (balanceMicros > 0) await seedBalance(deps, accountId, balanceMicros, nowMs);
}
