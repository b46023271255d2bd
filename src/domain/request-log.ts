import { redactHeaders, redactValue } from '../logging/record-redaction.js';
import type { Db } from '../store/db.js';
import {
  findRequestLogRow,
  insertRequestLogRow,
  queryRequestLog,
  trimRequestLog,
  type NewRequestLogRow,
  type RequestLogRow,
} from '../store/request-log.js';
import { findAccount } from './accounts.js';
import type { Deps } from './deps.js';

// The request log (behaviour.md section 12): what an integration sent and got back, per account, newest first.
// Off the request's critical path: a request only hands over references to what it already holds (headers,
// body text); redaction, serialisation and the SQLite write happen in batches a few milliseconds later, in one
// transaction per batch. A crash loses the batch not yet written (at most FLUSH_DELAY_MS of requests, or
// MAX_BUFFERED records), never anything of the ledger, which commits on its own before the answer is sent.

export const KEEP_PER_ACCOUNT = 1000;
/** Stored body text is cut here (after redaction) and marked truncated. */
export const MAX_BODY_CHARS = 64 * 1024;
const FLUSH_DELAY_MS = 25;
const MAX_BUFFERED = 1000;

/** What the HTTP layer hands over for one request; nothing here is redacted yet. */
export interface CapturedRequest {
  accountId: string;
  requestId: string;
  /** Wall-clock Unix ms at arrival. */
  atMs: number;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  keyId: string | null;
  /** The caller's key, masked by value wherever it shows up (a bootstrap key may have any shape). */
  apiKey: string | undefined;
  requestHeaders: Headers;
  /** null: no body; undefined: not read (it is then not recorded). */
  requestBody: string | null | undefined;
  responseHeaders: Headers;
  responseBody: string | null | undefined;
}

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

/** One per database: the buffer of requests not yet written. */
export class RequestLog {
  private buffer: CapturedRequest[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: Deps) {}

  add(captured: CapturedRequest): void {
    this.buffer.push(captured);
    if (this.buffer.length >= MAX_BUFFERED) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), FLUSH_DELAY_MS);
      this.timer.unref();
    }
  }

  /** Writes every buffered record (reads call this first, so they see every request answered before them). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    const { db, logger } = this.deps;
    if (!db.open) return;
    try {
      // A record of an account deleted meanwhile (a child sandbox) is dropped, not written as an orphan.
      const rows = batch.filter((r) => findAccount(this.deps, r.accountId) !== undefined).map(toRow);
      db.transaction(() => {
        for (const row of rows) insertRequestLogRow(db, row);
        for (const accountId of new Set(rows.map((r) => r.account_id))) trimRequestLog(db, accountId, KEEP_PER_ACCOUNT);
      })();
    } catch (err) {
      logger.error({ err, dropped: batch.length }, 'request log batch not written');
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

function toRow(r: CapturedRequest): NewRequestLogRow {
  const mask = r.apiKey !== undefined && r.apiKey.length >= 8 ? [r.apiKey] : [];
  const response = recordedBody(r.responseBody, mask);
  const idempotencyKey = r.requestHeaders.get('idempotency-key');
  const detail =
    `{"request":${messageJson(redactHeaders(r.requestHeaders, mask), recordedBody(r.requestBody, mask))},` +
    `"response":${messageJson(redactHeaders(r.responseHeaders, mask), response)}}`;
  return {
    account_id: r.accountId,
    request_id: r.requestId,
    at_ms: r.atMs,
    method: r.method,
    path: r.path,
    status: r.status,
    code: response.code,
    latency_ms: r.latencyMs,
    key_id: r.keyId,
    idempotency_key: idempotencyKey === null ? null : (redactValue(idempotencyKey, mask) as string),
    replayed: r.responseHeaders.get('idempotent-replayed') === 'true' ? 1 : 0,
    detail,
  };
}

interface BodyText {
  /** JSON text of the recorded body value. */
  json: string;
  truncated: boolean;
  /** The top-level `code` of a JSON object body. */
  code: number | null;
}

function recordedBody(text: string | null | undefined, mask: readonly string[]): BodyText {
  if (text === null || text === '') return { json: 'null', truncated: false, code: null };
  if (text === undefined)
    return { json: JSON.stringify('[body not read: not recorded]'), truncated: false, code: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Without JSON structure a CVV or an OTP cannot be found by its field name, so nothing of it is kept.
    return {
      json: JSON.stringify(`[not JSON, ${text.length} characters: not recorded]`),
      truncated: false,
      code: null,
    };
  }
  const code =
    typeof value === 'object' && value !== null && Number.isInteger((value as { code?: unknown }).code)
      ? ((value as { code: number }).code as number)
      : null;
  const json = JSON.stringify(redactValue(value, mask));
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
