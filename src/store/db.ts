import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrations } from './migrations/index.js';
import { TransactionRunner } from './transaction-runner.js';

export type Db = Database.Database;

/** Opens the SQLite database with the house pragmas and brings its schema up to date. */
export function openDb(path: string): Db {
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
  migrate(db, new TransactionRunner(db));
  return db;
}

/** Applies every numbered migration not yet recorded, each in its own transaction. */
function migrate(db: Db, transactions: TransactionRunner): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)');
  const applied = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    transactions.run(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name) VALUES (?, ?)').run(m.version, m.name);
    });
  }
}

const statementCache = new WeakMap<Db, Map<string, Database.Statement>>();

/** A prepared statement, compiled once per database: SQL text is the cache key. */
export function sql(db: Db, text: string): Database.Statement {
  let byText = statementCache.get(db);
  if (!byText) statementCache.set(db, (byText = new Map()));
  let stmt = byText.get(text);
  if (!stmt) byText.set(text, (stmt = db.prepare(text)));
  return stmt;
}

/**
 * Domain commands call this first: the transaction runner (store/transaction-runner.ts) opened the transaction, and
 * the command's checks, writes and event commit or roll back together inside it.
 */
export function assertInTransaction(db: Db, command: string): void {
  if (!db.inTransaction) throw new Error(`${command} must run inside its runner's transaction`);
}
