import pg from 'pg';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import {
  positional,
  StoreUnavailable,
  type Db,
  type Params,
  type Statement,
  type Store,
  type TransactionOptions,
} from './seam.js';

// The PostgreSQL driver of the store seam (store/seam.ts), on node-postgres (`pg`). What it does about the dialects'
// differences, so that the store's SQL is written once:
// - placeholders: `?` and `@name` become `$1..$n`, once per statement text;
// - statements are prepared on each connection the first time it runs them (named by a hash of their text);
// - integers: bigint (int8) columns and aggregates come back as JavaScript numbers, as SQLite's do. Money is bigint
//   micro-units bounded far below 2^53 (docs/decisions.md), and a value that is not a safe integer is refused
//   rather than rounded;
// - truth values: a boolean (EXISTS, a comparison) comes back as 1 or 0, as SQLite answers them (it has no boolean
//   type): `SELECT EXISTS (...)` compared with 1 held on SQLite and was always false here;
// - rows changed: a statement's rowCount.
// Transactions hold one pooled connection for their length and, given an account, its advisory lock: an account's
// transactions run one after another on every instance, as they do on SQLite's single connection. The reads a
// transaction opens with (seam.ts, `opening`) go with its BEGIN and lock in one simple query, their parameters
// written as quoted literals (typed from their context, as a parameter is), and answer its first statements.

const BOOL = 16;
const INT8 = 20;
const NUMERIC = 1700;

function safeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new Error(`${text} is past what a JSON number holds exactly`);
  return n;
}

/** PostgreSQL's text form of a boolean (`t` or `f`) as SQLite's truth value. */
const truthValue = (text: string): number => (text === 't' ? 1 : 0);

/** Parses integers and booleans of this driver's connections (not pg's defaults for the whole process). */
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return safeInteger;
    if (oid === BOOL) return truthValue;
    return pg.types.getTypeParser(oid, format);
  },
};

/**
 * The store's SQL in PostgreSQL's words, where SQLite's differ:
 * - a list parameter is a JSON array text, read in SQLite by `SELECT value FROM json_each(?)`; here by
 *   `json_array_elements_text`;
 * - a delete of some rows picked by a subquery names them by SQLite's `rowid`; here by `ctid`, the row's place
 *   (tables whose SQL orders by insertion have a real `rowid` column here, store/schema.ts);
 * - SQLite's LIKE ignores the case of ASCII letters; PostgreSQL's ILIKE does;
 * - no limit, before an OFFSET: SQLite's LIMIT -1 is LIMIT ALL.
 */
function dialectOf(sql: string): string {
  return sql
    .replace(/SELECT value FROM json_each\(\?\)/g, 'SELECT json_array_elements_text(?::json)')
    .replace(/\bWHERE rowid IN\s*\(SELECT rowid FROM\b/g, 'WHERE ctid IN (SELECT ctid FROM')
    .replace(/ LIKE /g, ' ILIKE ')
    .replace(/\bLIMIT -1 OFFSET\b/g, 'LIMIT ALL OFFSET');
}

interface Prepared {
  text: string;
  name: string;
}

/** `?` and `@name` as `$n`, and a name for the prepared statement, per statement text. */
class StatementTexts {
  private readonly cache = new Map<string, Prepared>();

  prepared(sql: string, params: Params | undefined): { query: Prepared; values: unknown[] } {
    const { sql: text, values } = positional(sql, params);
    let query = this.cache.get(text);
    if (!query) {
      let n = 0;
      const numbered = dialectOf(text).replace(/\?/g, () => `$${++n}`);
      query = { text: numbered, name: `s${createHash('sha1').update(numbered).digest('hex').slice(0, 16)}` };
      this.cache.set(text, query);
    }
    return { query, values };
  }
}

/** A PostgreSQL error that means the server cannot be reached or the connection was lost (not a bad statement). */
function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (typeof e.code === 'string') {
    // Node's socket errors, and SQLSTATE class 08 (connection exception), 57P01-57P03 (shut down, cannot connect now).
    if (/^(ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/.test(e.code))
      return true;
    if (/^08|^57P0[123]$/.test(e.code)) return true;
  }
  return /Connection terminated|connection timeout|Client has encountered a connection error|Query read timeout/i.test(
    e.message ?? '',
  );
}

/**
 * The server ended the connection because its transaction stayed idle past idle_in_transaction_session_timeout
 * (SQLSTATE 25P03). The database is there, so it is not marked unreachable: this transaction alone is lost, a 503.
 */
function endedIdle(err: unknown): StoreUnavailable | undefined {
  return (err as { code?: unknown } | null)?.code === '25P03'
    ? new StoreUnavailable(err, undefined, 'ended a transaction left idle too long')
    : undefined;
}

/**
 * Every connection of the pool stayed taken for the whole wait (pg-pool's own error). The database is there, so it is
 * not marked unreachable; the request answers 503 with Retry-After like an outage, and the next one tries again.
 */
function poolBusy(err: unknown): StoreUnavailable | undefined {
  const message = (err as Error | null)?.message ?? '';
  return /timeout exceeded when trying to connect/i.test(message)
    ? new StoreUnavailable(err, undefined, 'has no connection free')
    : undefined;
}

type Queryable = pg.Pool | pg.PoolClient;

/** A semicolon with more SQL after it. */
const MANY_STATEMENTS = /;\s*\S/;

/** Who is told of writes to which tables (`watchWrites`), matched on a statement's text once per text. */
class WriteWatchers {
  private readonly watchers: { pattern: RegExp; onWrite: () => void }[] = [];
  private readonly byText = new Map<string, (() => void)[]>();

  add(tables: readonly string[], onWrite: () => void): void {
    this.watchers.push({
      pattern: new RegExp(`^\\s*(UPDATE|DELETE\\s+FROM)\\s+(${tables.join('|')})\\b`, 'i'),
      onWrite,
    });
    this.byText.clear();
  }

  of(sql: string): (() => void)[] {
    let hooks = this.byText.get(sql);
    if (!hooks) {
      hooks = this.watchers.filter((w) => w.pattern.test(sql)).map((w) => w.onWrite);
      this.byText.set(sql, hooks);
    }
    return hooks;
  }
}

/**
 * The transaction a piece of work runs in, while it is open. A statement on the store itself (or a second transaction
 * of it) from inside one would take another connection: it sees none of the transaction's writes, and with the
 * pool's connections all held by transactions waiting on this one's account lock it never gets one. Refused at once
 * instead (a bug to fix by using the transaction's `db`); work that outlives its transaction may use the store.
 */
const openTransaction = new AsyncLocalStorage<{ open: boolean }>();

function refuseInsideTransaction(what: string): void {
  if (openTransaction.getStore()?.open) {
    throw new Error(`${what} on the store inside one of its transactions: use the transaction's db (deps.db)`);
  }
}

/**
 * Whether the database answered lately. After a failure to reach it, every statement fails at once for a moment
 * rather than each waiting out its own timeout: a request makes several, and must answer its 503 within seconds,
 * not after the sum of them. The next statement after the moment tries the database again.
 */
class Reachability {
  private downUntil = 0;
  private reason: unknown;

  /** Throws at once while the database is marked unreachable. */
  check(): void {
    if (this.downUntil > Date.now()) throw new StoreUnavailable(this.reason);
  }

  /** The error as the store reports it: a lost database marks it unreachable for a moment. */
  failed(err: unknown): unknown {
    if (!(err instanceof StoreUnavailable) && !isConnectionError(err)) return err;
    this.reason = err instanceof StoreUnavailable ? err.reason : err;
    this.downUntil = Date.now() + UNREACHABLE_FOR_MS;
    return err instanceof StoreUnavailable ? err : new StoreUnavailable(err);
  }
}

const UNREACHABLE_FOR_MS = 1000;

abstract class PostgresStatements implements Db {
  readonly dialect = 'postgres' as const;
  abstract readonly inTransaction: boolean;

  constructor(
    protected readonly texts: StatementTexts,
    protected readonly watchers: WriteWatchers,
    protected readonly reach: Reachability,
  ) {}

  /** A watched write ran: its watchers are told now, and (in a transaction) again once it ends. */
  protected abstract wrote(hooks: (() => void)[]): void;

  protected abstract connection(): Queryable;

  /** A statement lost its connection: the database is marked unreachable for a moment. */
  protected connectionLost(err: unknown): unknown {
    return this.reach.failed(err);
  }

  /** The answer of an opening read, when this statement is the next of them (a transaction's). */
  protected openedAnswer(_text: string, _values: unknown[], _rowMode?: 'array'): pg.QueryResult | undefined {
    return undefined;
  }

  private async query(sql: string, params: Params | undefined, rowMode?: 'array'): Promise<pg.QueryResult> {
    if (!this.inTransaction) refuseInsideTransaction('a statement');
    this.reach.check();
    const { query, values } = this.texts.prepared(sql, params);
    const opened = this.openedAnswer(query.text, values, rowMode);
    if (opened) return opened;
    const hooks = this.watchers.of(sql);
    if (hooks.length > 0) this.wrote(hooks);
    try {
      // Several statements in one text (a migration) can only go as a simple query: unprepared, no parameters.
      if (values.length === 0 && MANY_STATEMENTS.test(query.text)) {
        return await this.connection().query({ text: query.text, types: TYPES });
      }
      const config: pg.QueryConfig = { name: query.name, text: query.text, values, types: TYPES };
      if (rowMode) (config as pg.QueryArrayConfig).rowMode = rowMode;
      return await this.connection().query(config);
    } catch (err) {
      if (isConnectionError(err)) throw this.connectionLost(err);
      throw poolBusy(err) ?? err;
    }
  }

  async get<T>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.query(sql, params)).rows[0] as T | undefined;
  }

  async all<T>(sql: string, params?: Params): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async value<T>(sql: string, params?: Params): Promise<T | undefined> {
    return (await this.query(sql, params, 'array')).rows[0]?.[0] as T | undefined;
  }

  async column<T>(sql: string, params?: Params): Promise<T[]> {
    return (await this.query(sql, params, 'array')).rows.map((r: unknown[]) => r[0]) as T[];
  }

  async run(sql: string, params?: Params): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }

  abstract transaction<T>(work: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** An opening read as the transaction sent it, and what it answered. */
interface Opened {
  text: string;
  values: unknown[];
  result: pg.QueryResult;
}

/**
 * A value as a literal of SQL text: a quoted string, untyped until its context types it, as a parameter sent as
 * text is; undefined for a value with no such text (bytes, a boolean), whose read then goes on its own.
 */
function literal(client: pg.PoolClient, value: unknown): string | undefined {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return client.escapeLiteral(value);
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint')
    return client.escapeLiteral(String(value));
  return undefined;
}

/** The opening reads as one text of statements, or undefined when a parameter has no literal. */
function openingText(
  client: pg.PoolClient,
  texts: StatementTexts,
  reads: readonly Statement[],
): { text: string; reads: { text: string; values: unknown[] }[] } | undefined {
  const prepared = reads.map((r) => texts.prepared(r.sql, r.params).query.text);
  const out: { text: string; values: unknown[] }[] = [];
  const sql: string[] = [];
  for (const [i, r] of reads.entries()) {
    const values = [...r.params];
    const literals = values.map((v) => literal(client, v));
    if (literals.includes(undefined)) return undefined;
    sql.push(prepared[i]!.replace(/\$(\d+)/g, (_, n: string) => literals[Number(n) - 1]!));
    out.push({ text: prepared[i]!, values });
  }
  return { text: sql.join('; '), reads: out };
}

class PostgresTransaction extends PostgresStatements {
  readonly inTransaction = true;
  private savepoints = 0;
  /** The opening reads not yet asked for, in order (dropped at the first statement that is not the next). */
  opened: Opened[] = [];
  /** Watchers to tell again when the transaction ends (what another connection read meanwhile was the old row). */
  readonly toTellAtEnd = new Set<() => void>();

  constructor(
    texts: StatementTexts,
    watchers: WriteWatchers,
    reach: Reachability,
    private readonly client: pg.PoolClient,
    private readonly session: { ended?: unknown },
  ) {
    super(texts, watchers, reach);
  }

  protected override connectionLost(err: unknown): unknown {
    return endedIdle(this.session.ended) ?? super.connectionLost(err);
  }

  protected wrote(hooks: (() => void)[]): void {
    for (const hook of hooks) {
      hook();
      this.toTellAtEnd.add(hook);
    }
  }

  protected connection(): pg.PoolClient {
    return this.client;
  }

  protected override openedAnswer(text: string, values: unknown[], rowMode?: 'array'): pg.QueryResult | undefined {
    const next = this.opened.shift();
    if (!next) return undefined;
    // Its rows came as objects: a statement wanting arrays of them, or any other, goes on its own.
    if (
      rowMode ||
      next.text !== text ||
      next.values.length !== values.length ||
      next.values.some((v, i) => v !== values[i])
    ) {
      this.opened = [];
      return undefined;
    }
    return next.result;
  }

  async transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    const name = `s${++this.savepoints}`;
    await this.client.query(`SAVEPOINT ${name}`);
    try {
      const result = await work(this);
      await this.client.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (err) {
      if (!(err instanceof StoreUnavailable)) await this.client.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw err;
    } finally {
      this.savepoints--;
    }
  }
}

export interface PostgresOptions {
  /** Connections at most (the pool's bound). */
  maxConnections: number;
  /** A statement running longer is cancelled by the server. */
  statementTimeoutMs: number;
  /** How long to wait for a connection (from the pool, or to the server). */
  connectTimeoutMs: number;
  /**
   * A transaction left idle longer is ended by the server, its locks with it: an instance that stalls inside one (a
   * paused VM, a stopped process) cannot hold an account's lock while the other instances wait on it.
   */
  idleInTransactionTimeoutMs: number;
}

export class PostgresStore extends PostgresStatements implements Store {
  readonly inTransaction = false;
  private closed = false;

  constructor(
    private readonly pool: pg.Pool,
    readonly where: string,
  ) {
    super(new StatementTexts(), new WriteWatchers(), new Reachability());
  }

  protected wrote(hooks: (() => void)[]): void {
    for (const hook of hooks) hook();
  }

  detached<T>(work: () => T): T {
    return openTransaction.exit(work);
  }

  watchWrites(tables: readonly string[], onWrite: () => void): void {
    this.watchers.add(tables, onWrite);
  }

  /** A pool on `url` (libpq's parameters, `sslmode` among them; the password may come from PGPASSWORD). */
  static connect(url: string, options: PostgresOptions): PostgresStore {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.maxConnections,
      connectionTimeoutMillis: options.connectTimeoutMs,
      statement_timeout: options.statementTimeoutMs,
      idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs,
      // The server's statement timeout needs the server: a network that stops carrying anything is bounded here,
      // a second later, so a request never waits past it for a database that went silent.
      query_timeout: options.statementTimeoutMs + 1000,
      idleTimeoutMillis: 30_000,
      application_name: 'card-sandbox',
    });
    // An idle connection the server closed reports here; the next query takes another.
    pool.on('error', () => {});
    return new PostgresStore(pool, withoutPassword(url));
  }

  get open(): boolean {
    return !this.closed;
  }

  protected connection(): pg.Pool {
    return this.pool;
  }

  async transaction<T>(work: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T> {
    refuseInsideTransaction('a transaction');
    this.reach.check();
    const scope = { open: true };
    try {
      return await openTransaction.run(scope, () => this.transactionOnce(work, options));
    } finally {
      scope.open = false;
    }
  }

  private async transactionOnce<T>(work: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      throw poolBusy(err) ?? this.reach.failed(err);
    }
    let broken: unknown;
    // The server ending this connection while no statement runs on it (a transaction left idle past its bound) is
    // told here, not thrown at the process: the transaction's next statement fails, and it reports the first reason.
    const session: { ended?: unknown } = {};
    const onEnded = (err: unknown) => (session.ended ??= err);
    client.on('error', onEnded);
    let tx: PostgresTransaction | undefined;
    try {
      // The account's lock goes with BEGIN, in one round trip: a simple query of two statements, so the id is a
      // literal (escaped), not a parameter.
      const begin =
        options?.account === undefined
          ? 'BEGIN'
          : `BEGIN; SELECT pg_advisory_xact_lock(hashtextextended(${client.escapeLiteral(options.account)}, 0))`;
      const opening = options?.opening?.length ? openingText(client, this.texts, options.opening) : undefined;
      const results = (await client.query({
        text: opening ? `${begin}; ${opening.text}` : begin,
        types: TYPES,
      })) as unknown as pg.QueryResult | pg.QueryResult[];
      tx = new PostgresTransaction(this.texts, this.watchers, this.reach, client, session);
      if (opening && Array.isArray(results)) {
        const answers = results.slice(results.length - opening.reads.length);
        tx.opened = opening.reads.map((r, i) => ({ ...r, result: answers[i]! }));
      }
      const result = await work(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      const idle = endedIdle(session.ended);
      if (idle) {
        broken = session.ended;
        throw idle;
      }
      if (isConnectionError(err) || err instanceof StoreUnavailable) {
        broken = err;
        throw this.reach.failed(err);
      }
      await client.query('ROLLBACK').catch((e: unknown) => (broken = e));
      throw err;
    } finally {
      client.off('error', onEnded);
      // A connection that failed goes, not back to the pool.
      client.release(broken instanceof Error ? broken : broken === undefined ? undefined : true);
      for (const hook of tx?.toTellAtEnd ?? []) hook();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}

/** The URL without its password (nor a `password` parameter, which libpq takes too), for a log line or an error. */
export function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    u.searchParams.delete('password');
    return u.toString();
  } catch {
    return 'postgres://(a URL that does not parse)';
  }
}
