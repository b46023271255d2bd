import { sql, type Db } from './db.js';

// Deleting an account with every row it owns (a child sandbox's end). The tables are read from the schema, not
// listed here, so a table added by a later migration is purged without anyone remembering to add it.

const tablesCache = new WeakMap<Db, string[]>();

/**
 * Every table with an account_id column (the accounts table itself aside).
 * @internal exported for the tests that check a deleted child leaves no row in any of them
 */
export function accountOwnedTables(db: Db): string[] {
  let tables = tablesCache.get(db);
  if (!tables) {
    tables = sql(
      db,
      `SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND m.name <> 'accounts'
         AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'account_id') ORDER BY m.name`,
    )
      .pluck()
      .all() as string[];
    tablesCache.set(db, tables);
  }
  return tables;
}

/**
 * Deletes the account row and every row of every account-owned table, plus the per-account and per-card
 * counters of seq_counters. Runs inside the caller's transaction; foreign keys are checked at its commit, so the
 * order of the deletes does not matter.
 */
export function purgeAccount(db: Db, accountId: string): void {
  if (!db.inTransaction) throw new Error('purgeAccount must run inside a transaction');
  db.pragma('defer_foreign_keys = ON');
  // Counter scopes are `<kind>:<account id>[:...]` or `txn-card:<card id>`; read before the cards go.
  sql(
    db,
    `DELETE FROM seq_counters WHERE scope LIKE '%:' || @id OR scope LIKE '%:' || @id || ':%'
       OR scope IN (SELECT 'txn-card:' || id FROM cards WHERE account_id = @id)`,
  ).run({ id: accountId });
  for (const table of accountOwnedTables(db)) sql(db, `DELETE FROM ${table} WHERE account_id = ?`).run(accountId);
  sql(db, "DELETE FROM meta WHERE key = 'bootstrap_account' AND value = ?").run(accountId);
  sql(db, 'DELETE FROM accounts WHERE id = ?').run(accountId);
}

export interface ChildRow {
  id: string;
  name: string;
  created_at_ms: number;
  expires_at_ms: number;
}

export function insertChildLink(db: Db, childId: string, parentId: string, expiresAtMs: number): void {
  sql(db, 'UPDATE accounts SET parent_account_id = ?, expires_at_ms = ? WHERE id = ?').run(
    parentId,
    expiresAtMs,
    childId,
  );
}

/** The parent's children, oldest first (expired ones included: the caller decides). */
export function childrenOf(db: Db, parentId: string): ChildRow[] {
  return sql(
    db,
    `SELECT id, name, created_at_ms, expires_at_ms FROM accounts WHERE parent_account_id = ?
       ORDER BY created_at_ms, id`,
  ).all(parentId) as ChildRow[];
}

/** Ids of children whose wall-clock expiry is at or before `wallMs`. */
export function expiredChildIds(db: Db, wallMs: number, limit = 100): string[] {
  return sql(db, 'SELECT id FROM accounts WHERE expires_at_ms <= ? ORDER BY expires_at_ms LIMIT ?')
    .pluck()
    .all(wallMs, limit) as string[];
}
