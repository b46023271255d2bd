import type { Db } from './seam.js';
import { deferForeignKeys } from './db.js';
import { referencedBy, tablesWithColumn } from './schema.js';

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
    tables = (await tablesWithColumn(db, 'account_id')).filter((t) => t !== 'accounts');
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
  await deleteAccountCounters(db, accountId);
  for (const table of await accountOwnedTables(db))
    await db.run(`DELETE FROM ${table} WHERE account_id = ?`, [accountId]);
  await db.run("DELETE FROM meta WHERE key = 'bootstrap_account' AND value = ?", [accountId]);
  await db.run('DELETE FROM accounts WHERE id = ?', [accountId]);
}

/** The counters numbering the account's things: scopes `<kind>:<account id>[:...]`, and `txn-card:<card id>`. */
export async function deleteAccountCounters(db: Db, accountId: string): Promise<void> {
  // Read before the cards go.
  await db.run(
    `DELETE FROM seq_counters WHERE scope LIKE '%:' || @id OR scope LIKE '%:' || @id || ':%'
       OR scope IN (SELECT 'txn-card:' || id FROM cards WHERE account_id = @id)`,
    { id: accountId },
  );
}

const deleteOrderCache = new WeakMap<Db, string[]>();

/**
 * The account-owned tables in an order rows can be deleted in, table by table, each commit keeping every foreign key:
 * a table before the tables it refers to (transactions before cards, transfers before ledger accounts). A cache of
 * the schema, read once per database (per `Db`: call it with the store, not a transaction, for the cache to hold).
 */
export async function accountTablesInDeleteOrder(db: Db): Promise<string[]> {
  let order = deleteOrderCache.get(db);
  if (!order) {
    const tables = await accountOwnedTables(db);
    const refersTo = new Map<string, Set<string>>();
    for (const t of tables) {
      const refs = await referencedBy(db, t);
      refersTo.set(t, new Set(refs.filter((r) => r !== t && tables.includes(r))));
    }
    order = [];
    // Repeatedly take the tables no table left refers to: they go first.
    const left = new Set(tables);
    while (left.size > 0) {
      const free = [...left].filter((t) => ![...left].some((o) => refersTo.get(o)!.has(t)));
      if (free.length === 0) throw new Error(`foreign keys between ${[...left].join(', ')} form a circle`);
      for (const t of free) {
        order.push(t);
        left.delete(t);
      }
    }
    deleteOrderCache.set(db, order);
  }
  return order;
}

/** Within a table, rows that others of the same table refer to go last (a refund refers to its purchase). */
const DELETE_ORDER: Readonly<Record<string, string>> = { transactions: 'ORDER BY acct_seq DESC' };

/**
 * Deletes up to `limit` of the account's rows of one table; answers how many went. Run it in a transaction opened
 * with `{ foreignKeys: false }` (transaction-runner.ts): a purge deletes every row of one account in an order that
 * keeps every reference, and nothing of another account refers to them, so the checks only cost (deleting a
 * transaction, a ledger account or a card looked for rows referring to it in tables with no index on the reference:
 * a second for a child of 10,000 rows, growing with the server).
 */
export async function deleteAccountRowsChunk(db: Db, table: string, accountId: string, limit: number): Promise<number> {
  return await db.run(
    `DELETE FROM ${table} WHERE rowid IN
       (SELECT rowid FROM ${table} WHERE account_id = ? ${DELETE_ORDER[table] ?? ''} LIMIT ?)`,
    [accountId, limit],
  );
}

/**
 * Ends an account at once, before its rows go: its keys stop working and its timers stop (their rows deleted), and it
 * is no live child any more (expired now). Its other rows stay until it is purged.
 */
export async function endAccountRow(db: Db, accountId: string, wallMs: number): Promise<void> {
  await db.run('DELETE FROM api_keys WHERE account_id = ?', [accountId]);
  await db.run('DELETE FROM jobs WHERE account_id = ?', [accountId]);
  // (Not MIN(a, b): PostgreSQL's two-value minimum is LEAST, which SQLite lacks.)
  await db.run(
    'UPDATE accounts SET expires_at_ms = @wall WHERE id = @id AND (expires_at_ms IS NULL OR expires_at_ms > @wall)',
    {
      id: accountId,
      wall: wallMs,
    },
  );
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

/** Children whose wall-clock expiry is at or before `wallMs` (ended ones included), with their parent. */
export async function expiredChildIds(
  db: Db,
  wallMs: number,
  limit = 100,
): Promise<{ id: string; parent_account_id: string }[]> {
  return (await db.all(
    'SELECT id, parent_account_id FROM accounts WHERE expires_at_ms <= ? ORDER BY expires_at_ms LIMIT ?',
    [wallMs, limit],
  )) as { id: string; parent_account_id: string }[];
}
