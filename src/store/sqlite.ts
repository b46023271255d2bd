import Database from 'better-sqlite3';
import { isRecord, NAMED_IN_ARRAY, type Db, type Params, type Store, type TransactionOptions } from './seam.js';

// The SQLite driver of the store seam (store/seam.ts): better-sqlite3, whose statements run synchronously in this
// process. One connection, so one transaction at a time: a transaction waits for the one before it, and a statement
// outside any transaction (a read of a request) waits for the open one to end, so it never sees what that one has
// written before its commit. Transactions hold no lock across the event loop's turns: their statements complete at
// once, and only the work between them awaits.

type Statement = Database.Statement;

/** One connection's statements, prepared once each (the SQL text is the key). */
class Statements {
  private readonly cache = new Map<string, Statement>();

  constructor(readonly connection: Database.Database) {}

  prepare(sql: string): Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.connection.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }
}

/** A statement's parameters as better-sqlite3 takes them: positions spread, names as one object. */
function bind(params: Params | undefined): unknown[] {
  if (params === undefined) return [];
  if (!Array.isArray(params)) return [params];
  // better-sqlite3 would take `[{...}]` as named parameters; PostgreSQL's driver could not, so neither does this one.
  for (const v of params as unknown[]) if (isRecord(v)) throw new Error(NAMED_IN_ARRAY);
  return params as unknown[];
}

/** The statements of a connection, as the seam asks for them; `inTransaction` says which side of it this is. */
abstract class SqliteStatements implements Db {
  readonly dialect = 'sqlite' as const;
  abstract readonly inTransaction: boolean;

  constructor(protected readonly statements: Statements) {}

  /** Outside a transaction: resolves once no transaction of this connection is open. */
  protected abstract ready(): Promise<void> | undefined;

  async get<T>(sql: string, params?: Params): Promise<T | undefined> {
    await this.ready();
    return this.statements.prepare(sql).get(...bind(params)) as T | undefined;
  }

  async all<T>(sql: string, params?: Params): Promise<T[]> {
    await this.ready();
    return this.statements.prepare(sql).all(...bind(params)) as T[];
  }

  async value<T>(sql: string, params?: Params): Promise<T | undefined> {
    await this.ready();
    return this.statements
      .prepare(sql)
      .pluck()
      .get(...bind(params)) as T | undefined;
  }

  async column<T>(sql: string, params?: Params): Promise<T[]> {
    await this.ready();
    return this.statements
      .prepare(sql)
      .pluck()
      .all(...bind(params)) as T[];
  }

  async run(sql: string, params?: Params): Promise<number> {
    await this.ready();
    return this.statements.prepare(sql).run(...bind(params)).changes;
  }

  abstract transaction<T>(work: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** One transaction (or savepoint) of the connection, handed to the work it runs. */
class SqliteTransaction extends SqliteStatements {
  readonly inTransaction = true;
  private savepoints = 0;

  protected ready(): undefined {
    // Some errors (a full disk) make SQLite roll the whole transaction back: nothing may then go on as if it held.
    if (!this.statements.connection.inTransaction) throw new Error('the transaction was rolled back by SQLite');
    return undefined;
  }

  /** Inside a transaction: a savepoint, which rolls back alone when `work` throws. */
  async transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    const name = `s${++this.savepoints}`;
    const db = this.statements.connection;
    db.exec(`SAVEPOINT ${name}`);
    try {
      const result = await work(this);
      db.exec(`RELEASE ${name}`);
      return result;
    } catch (err) {
      // Some errors (a full disk) make SQLite roll the whole transaction back: then there is no savepoint to undo.
      if (db.inTransaction) {
        db.exec(`ROLLBACK TO ${name}`);
        db.exec(`RELEASE ${name}`);
      }
      throw err;
    } finally {
      this.savepoints--;
    }
  }
}

export class SqliteStore extends SqliteStatements implements Store {
  readonly inTransaction = false;
  /** The end of the last transaction queued: the next one starts after it. */
  private tail: Promise<unknown> = Promise.resolve();
  /** Transactions queued or running: a statement outside them waits until there are none. */
  private pending = 0;

  constructor(
    readonly connection: Database.Database,
    readonly where: string,
  ) {
    super(new Statements(connection));
  }

  get open(): boolean {
    return this.connection.open;
  }

  protected ready(): Promise<void> | undefined {
    return this.pending > 0 ? this.idle() : undefined;
  }

  /** Resolves once no transaction is queued or open. */
  private async idle(): Promise<void> {
    while (this.pending > 0) await this.tail.catch(() => undefined);
  }

  /** Runs `work` in a transaction once the ones queued before it have ended. */
  transaction<T>(work: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T> {
    this.pending++;
    const unchecked = options?.foreignKeys === false;
    const run = async (): Promise<T> => {
      const db = this.connection;
      // The connection's setting, taken outside a transaction; set back in `finally`, before the next one begins.
      if (unchecked) db.pragma('foreign_keys = OFF');
      db.exec('BEGIN');
      try {
        const result = await work(new SqliteTransaction(this.statements));
        db.exec('COMMIT');
        return result;
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      } finally {
        if (unchecked) db.pragma('foreign_keys = ON');
        this.pending--;
      }
    };
    const next = this.tail.then(run, run);
    this.tail = next;
    return next;
  }

  detached<T>(work: () => T): T {
    // One connection, transactions queued: later work waits its turn anyway.
    return work();
  }

  watchWrites(tables: readonly string[], onWrite: () => void): void {
    const fn = `sandbox_rows_changed_${tables.join('_')}`;
    this.connection.function(fn, { deterministic: false }, () => {
      onWrite();
      return null;
    });
    // Temporary triggers call back into JavaScript: this connection's changes only, and only rows that changed.
    for (const table of tables) {
      for (const event of ['UPDATE', 'DELETE']) {
        this.connection.exec(
          `CREATE TEMP TRIGGER ${table}_${event.toLowerCase()}_seen AFTER ${event} ON main.${table}
             BEGIN SELECT ${fn}(); END`,
        );
      }
    }
  }

  async close(): Promise<void> {
    await this.idle();
    this.connection.close();
  }
}
