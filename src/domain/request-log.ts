import type { Redactor } from '../redaction/redactor.js';
import type { Db } from '../store/db.js';
import {
  findRequestLogRow,
  insertRequestLogRow,
  queryRequestLog,
  tenantRequestLogBytes,
  trimRequestLog,
  trimTenantRequestLog,
  type NewRequestLogRow,
  type RecordRow,
  type RequestLogRow,
} from '../store/request-log.js';
import { findAccount } from './accounts.js';
import type { CapturedRequest } from './captured-request.js';
import { PendingRecords, type Pending, type PutResult } from './pending-records.js';
import type { Deps } from './deps.js';
import { tenantOf } from './tenants.js';

// The request log (behaviour.md section 12): what an integration sent and got back, per account, newest first.
// Off the request's critical path: a request only hands over flat strings it already holds (header names and
// values, body text), which are encoded at once into the account's circle of its newest 1,000 pending records, bytes
// outside the JS heap (pending-records.ts). At most once a second, the pending records are decoded, redacted,
// serialised and written in one transaction, which trims each account to 1,000; a record pushed out of the circle
// before that is never written (the trim would delete it at once). So the writing costs at most 1,000
// records per account and batch whatever the load, and after a batch in which an account pushed records out (more
// than 1,000 requests since the last), the next is written BUSY_FLUSH_INTERVAL_MS later instead: at 3,000 card/list
// a second, writing 1,000 records every second was a third of the log's cost (bench: docs/developer-tools.md).
// A crash loses the records not yet written (at most FLUSH_INTERVAL_MS of requests, BUSY_FLUSH_INTERVAL_MS under
// that load), never anything of the ledger, which commits on its own before the answer is sent.

export const KEEP_PER_ACCOUNT = 1000;
/** Stored body text is cut here (after redaction) and marked truncated. */
export const MAX_BODY_CHARS = 64 * 1024;
/** Pending records are written at most this long after their request (what a crash may lose). */
export const FLUSH_INTERVAL_MS = 1000;
/** After a batch in which an account sent more than KEEP_PER_ACCOUNT requests, the next is written this long after. */
export const BUSY_FLUSH_INTERVAL_MS = 4000;
/** All accounts together: past this many pending records they are written at once (bounds the memory). */
const MAX_PENDING = 20_000;
/** All accounts' buffers together: past this they are written at once and let go. */
const MAX_BYTES = 64 * 1024 * 1024;
/** One account's buffer: 1,000 records of 16 KB (a 3.6 KB card/list answer makes a record of about 4 KB). */
const MAX_ACCOUNT_BYTES = 16 * 1024 * 1024;

export interface RequestSummary {
  requestId: string;
  time: string;
  method: string;
  path: string;
  status: number;
  code: number | null;
  latencyMs: number;
  keyId: string | null;
  idempotencyKey: string | null;
  replayed: boolean;
}

export interface RecordedMessage {
  headers: Record<string, string>;
  /** The redacted JSON body; a string when it was truncated or could not be recorded; null when there was none. */
  body: unknown;
  truncated: boolean;
}

export interface RequestRecord extends RequestSummary {
  request: RecordedMessage;
  response: RecordedMessage;
}

const isLarge = (c: CapturedRequest) =>
  (c.requestBody?.length ?? 0) > MAX_BODY_CHARS || (c.responseBody?.length ?? 0) > MAX_BODY_CHARS;

/** One per database: per account, the requests not yet written. */
export class RequestLog {
  /** Kept from one batch to the next, so a busy account reuses the same warm bytes (pending-records.ts). */
  private pending = new Map<string, PendingRecords>();
  private pendingCount = 0;
  /** Bytes the accounts' buffers hold together; past MAX_BYTES the batch is written and the buffers let go. */
  private heldBytes = 0;
  /** Whether an account pushed a record out since the last batch. */
  private overflowed = false;
  /** The wait before the next batch: FLUSH_INTERVAL_MS, or BUSY_FLUSH_INTERVAL_MS after a batch that overflowed. */
  private interval = FLUSH_INTERVAL_MS;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: Deps) {}

  add(captured: CapturedRequest): void {
    let result = this.put(captured, false);
    if (result === 'full') {
      this.flush();
      result = this.put(captured, true);
    }
    if (result === 'replaced') this.overflowed = true;
    else this.pendingCount++;
    if (this.pendingCount >= MAX_PENDING || this.heldBytes > MAX_BYTES) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.interval);
      this.timer.unref();
    }
  }

  /** Adds the record to its account's pending records; `orRow`: when they have no room, as a row made now. */
  private put(captured: CapturedRequest, orRow: boolean): PutResult {
    let records = this.pending.get(captured.accountId);
    if (!records) {
      records = new PendingRecords(KEEP_PER_ACCOUNT, MAX_ACCOUNT_BYTES);
      this.pending.set(captured.accountId, records);
    }
    const before = records.bytes;
    // A body past the cap is redacted and cut now, so the buffer never holds megabytes per record.
    const row = () => toRow(captured, this.deps.redactor);
    let result = isLarge(captured) ? records.putRow(row()) : records.put(captured);
    if (result === 'full' && orRow) result = records.putRow(row());
    this.heldBytes += records.bytes - before;
    return result;
  }

  /** Writes every pending record (reads call this first, so they see every request answered before them). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pendingCount === 0) return;
    const batches: [string, Pending[]][] = [];
    for (const [accountId, records] of this.pending) {
      if (records.size > 0) batches.push([accountId, records.take(accountId)]);
      // An account quiet since the last batch, or every account once the buffers hold too much, lets its buffer go.
      else this.pending.delete(accountId);
    }
    if (this.heldBytes > MAX_BYTES) this.pending = new Map();
    this.heldBytes = [...this.pending.values()].reduce((sum, r) => sum + r.bytes, 0);
    this.pendingCount = 0;
    this.interval = this.overflowed ? BUSY_FLUSH_INTERVAL_MS : FLUSH_INTERVAL_MS;
    this.overflowed = false;
    const { db, logger } = this.deps;
    try {
      if (!db.open) return;
      const rows: [string, NewRequestLogRow[]][] = [];
      const tenants = new Set<string>();
      for (const [accountId, list] of batches) {
        const account = findAccount(this.deps, accountId);
        // A record of an account deleted meanwhile (a child sandbox) is dropped, not written as an orphan.
        if (account === undefined) continue;
        const tenant = tenantOf(account);
        tenants.add(tenant);
        const made = list.map((p) => ('account_id' in p ? p : toRow(p, this.deps.redactor)));
        rows.push([accountId, made.map((row) => ({ ...row, tenant_id: tenant }))]);
      }
      const budget = this.deps.config.tenant.requestLogBytes;
      // In order of arrival across accounts, so that a tenant's oldest records (the lowest seqs) go first.
      const inOrder = rows.flatMap(([, list]) => list).sort((a, b) => a.at_ms - b.at_ms);
      db.transaction(() => {
        for (const row of inOrder) insertRequestLogRow(db, row);
        for (const [accountId] of rows) trimRequestLog(db, accountId, KEEP_PER_ACCOUNT);
        for (const tenant of tenants) {
          if (tenantRequestLogBytes(db, tenant) > budget) trimTenantRequestLog(db, tenant, budget);
        }
      })();
    } catch (err) {
      logger.error({ err }, 'request log batch not written');
    }
  }
}

const logs = new WeakMap<Db, RequestLog>();

/** The request log of this database (created on first use). */
export function requestLogOf(deps: Deps): RequestLog {
  let log = logs.get(deps.db);
  if (!log) logs.set(deps.db, (log = new RequestLog(deps)));
  return log;
}

function toRow(r: CapturedRequest, server: Redactor): RecordRow {
  const sent = r.requestHeaders.split('\n');
  // The caller's own key is masked by value wherever it shows up in the record, whatever its shape.
  const redactor = server.with([headerValue(sent, 'x-api-key')]);
  const request = recordedBody(r.requestBody, true, redactor);
  const response = recordedBody(r.responseBody, false, redactor);
  const requestHeaders = redactor.headers(sent);
  const responseHeaders = redactor.headers(r.responseHeaders.split('\n'));
  const requestId = redactor.text(r.requestId);
  const path = redactor.url(r.path);
  const idempotencyKey = requestHeaders['idempotency-key'] ?? null;
  const detail = `{"request":${messageJson(requestHeaders, request)},"response":${messageJson(responseHeaders, response)}}`;
  return {
    account_id: r.accountId,
    bytes:
      Buffer.byteLength(detail) +
      Buffer.byteLength(path) +
      Buffer.byteLength(requestId) +
      (idempotencyKey === null ? 0 : Buffer.byteLength(idempotencyKey)),
    request_id: requestId,
    at_ms: r.atMs,
    method: r.method,
    path,
    status: r.status,
    code: response.code,
    latency_ms: r.latencyMs,
    key_id: r.keyId,
    idempotency_key: idempotencyKey,
    replayed: responseHeaders['idempotent-replayed'] === 'true' ? 1 : 0,
    detail,
  };
}

function headerValue(list: readonly string[], lowerName: string): string | undefined {
  for (let i = 0; i + 1 < list.length; i += 2) if (list[i]!.toLowerCase() === lowerName) return list[i + 1];
  return undefined;
}

interface BodyText {
  /** JSON text of the recorded body value, redacted. */
  json: string;
  truncated: boolean;
  /** The top-level `code` of a JSON object body. */
  code: number | null;
}

const note = (text: string): BodyText => ({ json: JSON.stringify(text), truncated: false, code: null });
/** Our answers put `code` first when they have one (`{...OK, ...}`, the error body). */
const LEADING_CODE = /^\{"code":(-?\d+)[,}]/;

/**
 * A body as it is stored. Text in which the redaction can find nothing is kept as it came (the answer's own JSON, or
 * a request body once it parsed); the rest is parsed, redacted through its structure and serialised again (a JSON
 * escape such as `\u0063vv` can spell a secret name in disguise, so such text is always parsed). Bodies past 64 KiB
 * are cut after redaction, and kept as a string.
 */
function recordedBody(text: string | null | undefined, validate: boolean, redactor: Redactor): BodyText {
  if (text === null || text === '') return { json: 'null', truncated: false, code: null };
  if (text === undefined) return note('[body not read: not recorded]');
  const leading = LEADING_CODE.exec(text);
  let code = leading ? Number(leading[1]) : null;
  let json = text;
  const redact = text.length > MAX_BODY_CHARS || text.includes('\\u') || redactor.mayHold(text);
  if (validate || redact) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Without JSON structure a CVV or an OTP cannot be found by its field name, so nothing of it is kept.
      return note(`[not JSON, ${text.length} characters: not recorded]`);
    }
    if (
      code === null &&
      typeof value === 'object' &&
      value !== null &&
      Number.isInteger((value as { code?: unknown }).code)
    ) {
      code = (value as { code: number }).code;
    }
    if (redact) json = JSON.stringify(redactor.value(value));
  }
  if (json.length <= MAX_BODY_CHARS) return { json, truncated: false, code };
  return { json: JSON.stringify(json.slice(0, MAX_BODY_CHARS)), truncated: true, code };
}

function messageJson(headers: Record<string, string>, body: BodyText): string {
  return `{"headers":${JSON.stringify(headers)},"body":${body.json},"truncated":${body.truncated}}`;
}

function toSummary(r: Omit<RequestLogRow, 'detail'>): RequestSummary {
  return {
    requestId: r.request_id,
    time: new Date(r.at_ms).toISOString(),
    method: r.method,
    path: r.path,
    status: r.status,
    code: r.code,
    latencyMs: r.latency_ms,
    keyId: r.key_id,
    idempotencyKey: r.idempotency_key,
    replayed: r.replayed === 1,
  };
}

export interface RequestFilter {
  limit: number;
  path?: string;
  /** Inclusive HTTP status range (one status, or a class such as 400..499). */
  status?: { from: number; to: number };
  /** The seq of the last record of the previous page. */
  afterSeq?: number;
}

/** A page of summaries, newest first, and the cursor of the next page (null on the last). */
export function listRequests(
  deps: Deps,
  accountId: string,
  f: RequestFilter,
): { requests: RequestSummary[]; nextSeq: number | null } {
  requestLogOf(deps).flush();
  const rows = queryRequestLog(deps.db, accountId, {
    limit: f.limit,
    path: f.path,
    statusFrom: f.status?.from ?? 0,
    statusTo: f.status?.to ?? 999,
    beforeSeq: f.afterSeq ?? Number.MAX_SAFE_INTEGER,
  });
  const page = rows.slice(0, f.limit);
  return { requests: page.map(toSummary), nextSeq: rows.length > f.limit ? page[page.length - 1]!.seq : null };
}

/** The full record of the account's newest request with this id, or undefined. */
export function getRequest(deps: Deps, accountId: string, requestId: string): RequestRecord | undefined {
  requestLogOf(deps).flush();
  const row = findRequestLogRow(deps.db, accountId, requestId);
  if (!row) return undefined;
  const detail = JSON.parse(row.detail) as { request: RecordedMessage; response: RecordedMessage };
  return { ...toSummary(row), request: detail.request, response: detail.response };
}
