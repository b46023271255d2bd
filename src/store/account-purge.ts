import type { Db } from './seam.js';
import { deferForeignKeys } from './db.js';

// Deleting an account with every row it owns (a child sandbox's end). The tables are read from the schema, not
// listed here, so a table added by a later migration is purged without anyone remembering to add it.

const tablesCache = new WeakMap<Db, string[]>();

/**
 * Every table with an account_id column (the accounts table itself aside).
 * @internal exported for the tests that check a deleted child leaves no row in any of them
 */
export async function accountOwnedTables(db: Db): Promise<string[]> {
  let tables = tablesCache.get(db);
  if (!tables) {
    tables = (await db.column(`SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND m.name <> 'accounts'
         AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'account_id') ORDER BY m.name`)) as string[];
    tablesCache.set(db, tables);
  }
  return tables;
}

/**
 * Deletes the account row and every row of every account-owned table, plus the per-account and per-card
 * counters of seq_counters. Runs inside the caller's transaction; foreign keys are checked at its commit, so the
 * order of the deletes does not matter.
 */
export async function purgeAccount(db: Db, accountId: string): Promise<void> {
  if (!db.inTransaction) throw new Error('purgeAccount must run inside a transaction');
  await deferForeignKeys(db);
  // Counter scopes are `<kind>:<account id>[:...]` or `txn-card:<card id>`; read before the cards go.
  await db.run(
    `DELETE FROM seq_counters WHERE scope LIKE '%:' || @id OR scope LIKE '%:' || @id || ':%'
       OR scope IN (SELECT 'txn-card:' || id FROM cards WHERE account_id = @id)`,
    { id: accountId },
  );
  for (const table of await accountOwnedTables(db))
    await db.run(`DELETE FROM ${table} WHERE account_id = ?`, [accountId]);
  await db.run("DELETE FROM meta WHERE key = 'bootstrap_account' AND value = ?", [accountId]);
  await db.run('DELETE FROM accounts WHERE id = ?', [accountId]);
}

export interface ChildRow {
  id: string;
  name: string;
  created_at_ms: number;
  expires_at_ms: number;
}

export async function insertChildLink(db: Db, childId: string, parentId: string, expiresAtMs: number): Promise<void> {
  await db.run('UPDATE accounts SET parent_account_id = ?, expires_at_ms = ? WHERE id = ?', [
    parentId,
    expiresAtMs,
    childId,
  ]);
}

/** The parent's children, oldest first (expired ones included: the caller decides). */
export async function childrenOf(db: Db, parentId: string): Promise<ChildRow[]> {
  return (await db.all(
    `SELECT id, name, created_at_ms, expires_at_ms FROM accounts WHERE parent_account_id = ?
       ORDER BY created_at_ms, id`,
    [parentId],
  )) as ChildRow[];
}

/** Ids of children whose wall-clock expiry is at or before `wallMs`. */
export async function expiredChildIds(db: Db, wallMs: number, limit = 100): Promise<string[]> {
  return (await db.column('SELECT id FROM accounts WHERE expires_at_ms <= ? ORDER BY expires_at_ms LIMIT ?', [
    wallMs,
    limit,
  ])) as string[];
}
