import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrations, postgresMigrations } from './migrations/index.js';
import { PostgresStore, type PostgresOptions } from './postgres.js';
import { StoreUnavailable, type Db, type Dialect, type Statement, type Store } from './seam.js';
export { soleWriter, StoreUnavailable } from './seam.js';
import { SqliteStore } from './sqlite.js';

export type { Db, Dialect, Statement, Store };

/** Opens the SQLite database with the house pragmas and brings its schema up to date. */
export function openSqlite(path: string): SqliteStore {
  return new SqliteStore(openDb(path), path);
}

/**
 * The SQLite connection itself, its pragmas set and its schema up to date (what the store is made on).
 * @internal exported for the tests that read or write a database file's bytes as they are
 */
export function openDb(path: string): Database.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  // Only a new, empty file takes it (an existing database keeps its page size). A write dirties a dozen
  // scattered B-tree pages, each written whole to the WAL: smaller pages cut a keyed deposit's server CPU, with reads
  // unchanged (bench/code-figures.md).
  db.pragma('page_size = 2048');
  // WAL lets readers run beside the single writer; NORMAL is durable across process crashes
  // (only an OS crash can lose the last commits), which is the failure a sandbox must survive.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/**
 * Applies every numbered migration not yet recorded, each in its own transaction: at open, before the store serves
 * anything, so synchronously on the connection (the runner's transactions are for what comes after).
 */
function migrate(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    db.exec('BEGIN');
    try {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(m.version, m.name);
      db.exec('COMMIT');
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw err;
    }
  }
}

/**
 * Domain commands call this first: the transaction runner (store/transaction-runner.ts) opened the transaction, and
 * the command's checks, writes and event commit or roll back together inside it.
 */
export function assertInTransaction(db: Db, command: string): void {
  if (!db.inTransaction) throw new Error(`${command} must run inside its runner's transaction`);
}

/** Whether `--db` names a PostgreSQL database (a URL), not a SQLite file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(ql)?:\/\//i.test(db);
}

/** The store's schema is newer than this release knows: refused at start, with both versions named. */
export class SchemaTooNew extends Error {}

/** A lock every instance takes to migrate, so the first migrates and the others wait, then find nothing to do. */
const MIGRATION_LOCK = 'card-sandbox migrations';

/**
 * Opens a PostgreSQL store and brings its schema up to date under a lock (instances starting together migrate
 * once). Refuses a database a newer release migrated. Throws StoreUnavailable when the server cannot be reached.
 */
export async function openPostgres(url: string, options: PostgresOptions): Promise<PostgresStore> {
  const store = PostgresStore.connect(url, options);
  try {
    await store.transaction(async (tx) => {
      await tx.value('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [MIGRATION_LOCK]);
      await tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL)');
      const applied = new Set(await tx.column<number>('SELECT version FROM schema_migrations'));
      const newest = Math.max(0, ...applied);
      const known = Math.max(...postgresMigrations.map((m) => m.version));
      if (newest > known) {
        throw new SchemaTooNew(
          `${store.where} holds schema version ${newest}, newer than this release's ${known}: run the release that ` +
            'migrated it (or a later one)',
        );
      }
      for (const m of postgresMigrations) {
        if (applied.has(m.version)) continue;
        await tx.run(m.sql);
        await tx.run('INSERT INTO schema_migrations (version, name) VALUES (?, ?)', [m.version, m.name]);
      }
    });
  } catch (err) {
    await store.close();
    // At start the operator needs to know which database: the URL without its password.
    if (err instanceof StoreUnavailable) throw new StoreUnavailable(err.reason, store.where);
    throw err;
  }
  return store;
}

/** A lock every instance takes for its first-start work, so a row made once per database is made once. */
const FIRST_START_LOCK = 'card-sandbox first start';

/**
 * Serialises the first-start work of instances starting together on one database (the default BIN, the ready
 * account): each checks what exists under the lock, so the first makes it and the others find it. Held until the
 * transaction ends; SQLite has one writer, and one process per file, already.
 */
export async function lockFirstStart(db: Db): Promise<void> {
  if (db.dialect === 'postgres')
    await db.value('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [FIRST_START_LOCK]);
}

/** The server secret the database holds (made by the first server to ask, in the same statement as the read). */
export async function storedSecretText(db: Db, made: string): Promise<string> {
  await db.run("INSERT INTO meta (key, value) VALUES ('server_secret', ?) ON CONFLICT (key) DO NOTHING", [made]);
  return (await db.value<string>("SELECT value FROM meta WHERE key = 'server_secret'"))!;
}

/**
 * Foreign keys checked at the transaction's commit rather than at each statement, for the rest of the transaction:
 * a purge or a snapshot's rows may then be written in any order. (PostgreSQL's keys are declared DEFERRABLE for it.)
 */
export async function deferForeignKeys(db: Db): Promise<void> {
  await db.run(db.dialect === 'postgres' ? 'SET CONSTRAINTS ALL DEFERRED' : 'PRAGMA defer_foreign_keys = ON');
}
