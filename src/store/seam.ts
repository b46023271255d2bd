// The store seam: what every store function is given to talk to its database, whichever it is. Two drivers keep it:
// SQLite (store/sqlite.ts, better-sqlite3, the embedded default) and PostgreSQL (store/postgres.ts). Store functions
// write their SQL once, with `?` (or `@name`) parameters and the common subset of the two dialects; where the dialects
// differ the store function asks `db.dialect` and says why, and what each driver does about the rest (placeholders,
// integer types, a statement's rows changed) is the driver's, named there.
//
// A `Db` is either the store itself (statements in autocommit: a read outside any transaction) or one transaction
// of it, handed by the transaction runner (store/transaction-runner.ts) to the work it runs. Nothing else opens a
// transaction.

/** Parameters of a statement: positional (`?`), or by name (`@name`). */
export type Params = readonly unknown[] | object;

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  readonly dialect: Dialect;
  /** Whether this is one transaction of the store (domain commands assert they run inside one). */
  readonly inTransaction: boolean;
  /** The first row, or undefined. */
  get<T>(sql: string, params?: Params): Promise<T | undefined>;
  /** Every row. */
  all<T>(sql: string, params?: Params): Promise<T[]>;
  /** The first column of the first row, or undefined. */
  value<T>(sql: string, params?: Params): Promise<T | undefined>;
  /** The first column of every row. */
  column<T>(sql: string, params?: Params): Promise<T[]>;
  /** Runs a statement; answers how many rows it changed. */
  run(sql: string, params?: Params): Promise<number>;
  /**
   * Runs `work` in a transaction of its own or, on a transaction, in a savepoint of it (which rolls back alone when
   * `work` throws). Only the transaction runner (store/transaction-runner.ts) calls this.
   */
  transaction<T>(work: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** What the store as a whole does beside its statements: open transactions (the runner's only), and close. */
export interface Store extends Db {
  /** A file path or URL a person would recognise in a log line: never its password. */
  readonly where: string;
  /** Whether the store is open (a server closing its store leaves late work nothing to write to). */
  readonly open: boolean;
  /**
   * Calls `onWrite` whenever an UPDATE or DELETE of a row of `tables` may have happened through this store (so far
   * as this process can see; a caller that remembers rows read from them forgets them then). A change in a
   * transaction calls it at once and again when the transaction ends.
   */
  watchWrites(tables: readonly string[], onWrite: () => void): void;
  /**
   * Starts work that outlives the transaction it is started from (nobody in the transaction awaits it): it may then
   * use the store and open transactions of its own, which wait for that one to end.
   */
  detached<T>(work: () => T): T;
  close(): Promise<void>;
}

/** A statement and its parameters, as a store function would run it. */
export interface Statement {
  sql: string;
  params: readonly unknown[];
}

export interface TransactionOptions {
  /**
   * The account whose rows the transaction reads to decide what it writes: transactions of one account run one
   * after another (SQLite has one writer anyway; PostgreSQL takes a lock on the account for the transaction's
   * length), so a balance read and the debit it allows cannot interleave with another of the account's.
   */
  account?: string;
  /**
   * false: the transaction runs with foreign keys not enforced (SQLite; a purge deleting an account's rows in an order
   * that keeps every reference, account-purge.ts). SQLite takes the setting only outside a transaction and for the
   * whole connection, so the driver sets it before BEGIN and back after the end, while no other transaction can run.
   * Inside a transaction (a savepoint) the checks stay. PostgreSQL keeps them.
   */
  foreignKeys?: boolean;
  /**
   * Reads the work is expected to begin with, in order (a keyed write's look at its account's due jobs and at its
   * key). PostgreSQL sends them with BEGIN and the account's lock, in one round trip, and answers the work's first
   * statements from them while each is the next of them, same text and parameters; the first that is not drops the
   * rest. What they answer is what the statements would have: read under the lock, with nothing of the transaction
   * run before them. SQLite runs each statement when the work does: its statements cost no round trip.
   */
  opening?: readonly Statement[];
}

/**
 * Whether every write to the database goes through this process, so that what it remembers of the rows (a cache it
 * forgets on its own writes) stays true: SQLite's file has one server; a PostgreSQL database may have many instances,
 * each writing behind the others' backs.
 */
export function soleWriter(db: Db): boolean {
  return db.dialect === 'sqlite';
}

/** Named parameters go as the object itself, never inside an array (a driver would bind the object as one value). */
export const NAMED_IN_ARRAY = 'named statement parameters go as an object, not inside an array';

/** A plain object (named parameters), not a value a statement binds (a Buffer, a Date, null). */
export function isRecord(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof Date);
}

/** A statement's SQL with its `@name` parameters turned positional, for a driver that takes positions only. */
export function positional(sql: string, params: Params | undefined): { sql: string; values: unknown[] } {
  if (params === undefined) return { sql, values: [] };
  if (Array.isArray(params)) {
    for (const v of params as unknown[]) if (isRecord(v)) throw new Error(NAMED_IN_ARRAY);
    return { sql, values: params as unknown[] };
  }
  const named = params as Readonly<Record<string, unknown>>;
  const values: unknown[] = [];
  const text = sql.replace(/@([A-Za-z_]\w*)/g, (_, name: string) => {
    if (!(name in named)) throw new Error(`statement parameter @${name} not given`);
    values.push(named[name]);
    return '?';
  });
  return { sql: text, values };
}

/**
 * The database cannot be reached (at start, or lost while serving): what a request that needs it answers as 503 with
 * Retry-After, never as a 500, and what timers and deliveries wait out. Its message names no password.
 */
export class StoreUnavailable extends Error {
  constructor(
    readonly reason: unknown,
    where?: string,
    state = 'cannot be reached',
  ) {
    super(`the database ${where ? `at ${where} ` : ''}${state}: ${(reason as Error)?.message ?? String(reason)}`);
    this.name = 'StoreUnavailable';
  }
}

/**
 * Whether an error is the database refusing a row by a rule of the schema (a unique key, a reference, a check, NOT
 * NULL), raised by a statement or, for a deferred reference, by the commit. The drivers name it differently:
 * better-sqlite3 by the codes SQLITE_CONSTRAINT_*, PostgreSQL by SQLSTATE class 23 (integrity constraint violation).
 */
export function isConstraintViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CONSTRAINT') || /^23[0-9A-Z]{3}$/.test(code));
}
