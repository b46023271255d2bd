import Database from 'better-sqlite3';

export interface LedgerReport {
  /** Accounts whose ledger balances do not sum to zero (money created or destroyed). */
  unbalancedAccounts: string[];
  /** Ledger accounts whose balance counter differs from the sum of their transfer rows. */
  driftedCounters: string[];
  /** Non-source ledger accounts below zero. */
  negativeBalances: string[];
  /** Idempotency keys still marked in flight. */
  keysInFlight: number;
}

/**
 * The conservation invariant read straight from the database file, beside the running server (WAL lets a
 * second connection read): debits equal credits per account, counters agree with the append-only transfers.
 */
export function checkLedgerFile(dbPath: string): LedgerReport {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const unbalanced = db
      .prepare('SELECT account_id FROM ledger_accounts GROUP BY account_id HAVING SUM(balance_micros) != 0')
      .pluck()
      .all() as string[];
    const drifted = db
      .prepare(
        `SELECT la.id FROM ledger_accounts la WHERE la.balance_micros !=
           COALESCE((SELECT SUM(amount_micros) FROM transfers WHERE credit_id = la.id), 0) -
           COALESCE((SELECT SUM(amount_micros) FROM transfers WHERE debit_id = la.id), 0)`,
      )
      .pluck()
      .all() as string[];
    const negative = db
      .prepare("SELECT id FROM ledger_accounts WHERE balance_micros < 0 AND kind NOT IN ('seed', 'chain')")
      .pluck()
      .all() as string[];
    const keysInFlight = db
      .prepare("SELECT COUNT(*) FROM idempotency_keys WHERE state = 'in_flight'")
      .pluck()
      .get() as number;
    return { unbalancedAccounts: unbalanced, driftedCounters: drifted, negativeBalances: negative, keysInFlight };
  } finally {
    db.close();
  }
}
