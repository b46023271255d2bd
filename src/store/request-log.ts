import type { Db } from './seam.js';

// SQL of the request log (migration 050): rows are written in batches and trimmed per account.

export interface RequestLogRow {
  seq: number;
  account_id: string;
  /** The account itself, or its parent for a child sandbox. */
  tenant_id: string;
  /** What the row keeps, in bytes (its detail, path, request id and idempotency key): the tenant's bound counts it. */
  bytes: number;
  request_id: string;
  at_ms: number;
  method: string;
  path: string;
  status: number;
  code: number | null;
  latency_ms: number;
  key_id: string | null;
  idempotency_key: string | null;
  replayed: number;
  detail: string;
  /** JSON of what an injected fault did to the request (migration 052); null when none did. */
  fault: string | null;
  /** The answer's Sandbox-Hint, redacted; null when it had none. */
  hint: string | null;
  /** Who made the call: the console for one of its pages, or the API (anything else). */
  source: RequestSource;
}

export type RequestSource = 'api' | 'console';

export type NewRequestLogRow = Omit<RequestLogRow, 'seq'>;

/** A row as a record makes it; its tenant is added when its batch is written. */
export type RecordRow = Omit<NewRequestLogRow, 'tenant_id'>;

const REQUEST_LOG_COLUMNS = [
  'account_id',
  'tenant_id',
  'bytes',
  'request_id',
  'at_ms',
  'method',
  'path',
  'status',
  'code',
  'latency_ms',
  'key_id',
  'idempotency_key',
  'replayed',
  'detail',
  'fault',
  'hint',
  'source',
] as const satisfies readonly (keyof NewRequestLogRow)[];

/** Rows per statement: 17 parameters a row stays far below either store's bound on parameters. */
const ROWS_PER_INSERT = 64;

/**
 * Inserts the rows in order (their seqs follow it), many to a statement: on PostgreSQL each statement is a round
 * trip, and a batch of one row each cost one per request answered.
 */
export async function insertRequestLogRows(db: Db, rows: readonly NewRequestLogRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    const tuple = `(${REQUEST_LOG_COLUMNS.map(() => '?').join(', ')})`;
    await db.run(
      `INSERT INTO request_log (${REQUEST_LOG_COLUMNS.join(', ')}) VALUES ${chunk.map(() => tuple).join(', ')}`,
      chunk.flatMap((r) => REQUEST_LOG_COLUMNS.map((column) => r[column])),
    );
  }
}

/** Keeps the newest `keep` rows of the account. */
export async function trimRequestLog(db: Db, accountId: string, keep: number): Promise<void> {
  await db.run(
    `DELETE FROM request_log WHERE account_id = @id AND seq <=
       (SELECT seq FROM request_log WHERE account_id = @id ORDER BY seq DESC LIMIT 1 OFFSET @keep)`,
    { id: accountId, keep },
  );
}

/** Bytes the tenant's rows keep together. */
export async function tenantRequestLogBytes(db: Db, tenantId: string): Promise<number> {
  return (await db.value('SELECT COALESCE(SUM(bytes), 0) FROM request_log WHERE tenant_id = ?', [tenantId])) as number;
}

/** Bytes every row keeps together (a scan of the tenant index, which holds each row's size). */
export async function requestLogBytes(db: Db): Promise<number> {
  return (await db.value('SELECT COALESCE(SUM(bytes), 0) FROM request_log')) as number;
}

/**
 * Deletes the tenant's oldest rows, across its accounts, until what is left keeps at most `budget` bytes; answers
 * how many went.
 */
export async function trimTenantRequestLog(db: Db, tenantId: string, budget: number): Promise<number> {
  return await db.run(
    `DELETE FROM request_log WHERE tenant_id = @tenant AND seq <= (
       SELECT seq FROM (
         SELECT seq, SUM(bytes) OVER (ORDER BY seq DESC) AS kept FROM request_log WHERE tenant_id = @tenant)
       WHERE kept > @budget ORDER BY seq DESC LIMIT 1)`,
    { tenant: tenantId, budget },
  );
}

export interface RequestLogQuery {
  limit: number;
  path?: string;
  statusFrom: number;
  statusTo: number;
  /** Only rows older than this seq (the cursor). */
  beforeSeq: number;
  /** Only the calls of this source; both when undefined. */
  source?: RequestSource;
}

/** Summaries (no detail) newest first; one row more than `limit` tells whether another page exists. */
export async function queryRequestLog(
  db: Db,
  accountId: string,
  q: RequestLogQuery,
): Promise<Omit<RequestLogRow, 'detail'>[]> {
  const columns = `seq, account_id, tenant_id, bytes, request_id, at_ms, method, path, status, code, latency_ms, key_id,
    idempotency_key, replayed, fault, hint, source`;
  // One statement per combination of filters, each prepared once (sql() caches by text).
  const where = [
    'account_id = @accountId AND seq < @beforeSeq AND status BETWEEN @statusFrom AND @statusTo',
    q.path !== undefined && 'path = @path',
    q.source !== undefined && 'source = @source',
  ]
    .filter(Boolean)
    .join(' AND ');
  const rows = await db.all(`SELECT ${columns} FROM request_log WHERE ${where} ORDER BY seq DESC LIMIT @limit`, {
    accountId,
    beforeSeq: q.beforeSeq,
    statusFrom: q.statusFrom,
    statusTo: q.statusTo,
    limit: q.limit + 1,
    ...(q.path !== undefined && { path: q.path }),
    ...(q.source !== undefined && { source: q.source }),
  });
  return rows as Omit<RequestLogRow, 'detail'>[];
}

/** The newest row of the account with this request id. */
export async function findRequestLogRow(
  db: Db,
  accountId: string,
  requestId: string,
): Promise<RequestLogRow | undefined> {
  return (await db.get('SELECT * FROM request_log WHERE account_id = ? AND request_id = ? ORDER BY seq DESC LIMIT 1', [
    accountId,
    requestId,
  ])) as RequestLogRow | undefined;
}

/** A row as a readiness run's checks read it: what the request was, without its headers and bodies. */
export type WindowRow = Pick<
  RequestLogRow,
  'seq' | 'request_id' | 'at_ms' | 'path' | 'status' | 'code' | 'idempotency_key'
>;

/** The account's rows of requests that started within [fromMs, toMs], in the order they were recorded. */
export async function rowsBetween(db: Db, accountId: string, fromMs: number, toMs: number): Promise<WindowRow[]> {
  return (await db.all(
    `SELECT seq, request_id, at_ms, path, status, code, idempotency_key FROM request_log
       WHERE account_id = ? AND at_ms BETWEEN ? AND ? ORDER BY seq`,
    [accountId, fromMs, toMs],
  )) as WindowRow[];
}

/** The stored detail (request and response, JSON) of one row. */
export async function detailOf(db: Db, seq: number): Promise<string | undefined> {
  return (await db.value('SELECT detail FROM request_log WHERE seq = ?', [seq])) as string | undefined;
}
