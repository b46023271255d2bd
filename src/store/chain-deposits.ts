import { sql, type Db } from './db.js';

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
