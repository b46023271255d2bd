import Database from 'better-sqlite3';
import { isRecord, NAMED_IN_ARRAY, type Db, type Params, type Store, type TransactionOptions } from './seam.js';

// The SQLite driver of the store seam (store/seam.ts): better-sqlite3, whose statements run synchronously in this
// process. One connection, so one transaction at a time: a transaction waits for the one before it, and a statement
// outside any transaction (a read of a request) waits for the open one to end, so it never sees what that one has
// written before its commit. Transactions hold no lock across the event loop's turns: their statements complete at
// once, and only the work between them awaits.

type Statement = Database.Statement;

/**
 * One connection's statements, prepared once each (the SQL text is the key). A statement that answers its first
 * column (`value`, `column`) is a second one of the same text: plucking is a setting of the statement, which would
 * otherwise leak into the next `get` of the same text.
 */
class Statements {
  private readonly rows = new Map<string, Statement>();
  private readonly firstColumns = new Map<string, Statement>();

  constructor(readonly connection: Database.Database) {}

  prepare(sql: string): Statement {
    let stmt = this.rows.get(sql);
    if (!stmt) {
      stmt = this.connection.prepare(sql);
      this.rows.set(sql, stmt);
    }
    return stmt;
  }

  plucked(sql: string): Statement {
    let stmt = this.firstColumns.get(sql);
    if (!stmt) {
      stmt = this.connection.prepare(sql).pluck();
      this.firstColumns.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * A statement of transaction control (BEGIN, SAVEPOINT s1 ...), prepared once: `exec` would compile its text on
   * every call, 7 % of a keyed write's CPU when each write of a batch opened and released its savepoint that way.
   */
  control(sql: string): void {
    this.prepare(sql).run();
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

  get<T>(sql: string, params?: Params): Promise<T | undefined> {
    return this.when(() => this.statements.prepare(sql).get(...bind(params)) as T | undefined);
  }

  all<T>(sql: string, params?: Params): Promise<T[]> {
    return this.when(() => this.statements.prepare(sql).all(...bind(params)) as T[]);
  }

  value<T>(sql: string, params?: Params): Promise<T | undefined> {
    return this.when(() => this.statements.plucked(sql).get(...bind(params)) as T | undefined);
  }

  column<T>(sql: string, params?: Params): Promise<T[]> {
    return this.when(() => this.statements.plucked(sql).all(...bind(params)) as T[]);
  }

  run(sql: string, params?: Params): Promise<number> {
    return this.when(() => this.statements.prepare(sql).run(...bind(params)).changes);
  }

  /**
   * Runs a statement once this side of the connection may (at once, mostly), its result or error as a promise. Not
   * an async function awaiting `ready()`: that costs a turn of the microtask queue per statement even when nothing
   * is to be waited for, and a keyed write runs 27 statements.
   */
  private when<T>(statement: () => T): Promise<T> {
    try {
      const wait = this.ready();
      return wait ? wait.then(statement) : Promise.resolve(statement());
    } catch (err) {
      return Promise.reject(err as Error);
    }
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
    // Outside a transaction SAVEPOINT would begin a new one, which its RELEASE would commit on its own.
    this.ready();
    const name = `s${++this.savepoints}`;
    const statements = this.statements;
    statements.control(`SAVEPOINT ${name}`);
    try {
      const result = await work(this);
      statements.control(`RELEASE ${name}`);
      return result;
    } catch (err) {
      // Some errors (a full disk) make SQLite roll the whole transaction back: then there is no savepoint to undo.
      if (statements.connection.inTransaction) {
        statements.control(`ROLLBACK TO ${name}`);
        statements.control(`RELEASE ${name}`);
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
      // Counted down however it ends, BEGIN refused included (a timer's transaction after the connection closed): a
      // count left up made every later wait for idleness (`idle`) spin on a settled tail, a core at 100 % for ever.
      try {
        return await this.runTransaction(work, unchecked);
      } finally {
        this.pending--;
      }
    };
    const next = this.tail.then(run, run);
    this.tail = next;
    return next;
  }

  private async runTransaction<T>(work: (tx: Db) => Promise<T>, unchecked: boolean): Promise<T> {
    const db = this.connection;
    // The connection's setting, taken outside a transaction; set back in `finally`, before the next one begins.
    if (unchecked) db.pragma('foreign_keys = OFF');
    this.statements.control('BEGIN');
    try {
      const result = await work(new SqliteTransaction(this.statements));
      this.statements.control('COMMIT');
      return result;
    } catch (err) {
      if (db.inTransaction) this.statements.control('ROLLBACK');
      throw err;
    } finally {
      if (unchecked) db.pragma('foreign_keys = ON');
    }
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
