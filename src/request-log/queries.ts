import type { RequestLogDeps } from './log.js';
import { findRequestLogRow, queryRequestLog, type RequestLogRow, type RequestSource } from '../store/request-log.js';
import { faultView, type FaultView } from './fault-view.js';

// Reading the request log: pages of summaries and full records, each read after the pending records are written, so
// a read sees every request answered before it.

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
  /** Who made the call: the console for one of its pages, or the API. */
  source: RequestSource;
  /** The answer's Sandbox-Hint (redacted), or null. */
  hint: string | null;
  /** What an injected fault did to the request, or null. */
  fault: FaultView | null;
}

interface RecordedMessage {
  headers: Record<string, string>;
  /** The redacted JSON body; a string when it was truncated or could not be recorded; null when there was none. */
  body: unknown;
  truncated: boolean;
}

export interface RequestRecord extends RequestSummary {
  request: RecordedMessage;
  response: RecordedMessage;
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
    source: r.source,
    hint: r.hint,
    fault: faultView(r.fault),
  };
}

export interface RequestFilter {
  limit: number;
  path?: string;
  /** Inclusive HTTP status range (one status, or a class such as 400..499). */
  status?: { from: number; to: number };
  /** The seq of the last record of the previous page. */
  afterSeq?: number;
  /** Only the calls of this source (the console's, or the API's); both when undefined. */
  source?: RequestSource;
}

/** A page of summaries, newest first, and the cursor of the next page (null on the last). */
export function listRequests(
  deps: RequestLogDeps,
  accountId: string,
  f: RequestFilter,
): { requests: RequestSummary[]; nextSeq: number | null } {
  deps.requestLog.flush();
  const rows = queryRequestLog(deps.db, accountId, {
    limit: f.limit,
    path: f.path,
    statusFrom: f.status?.from ?? 0,
    statusTo: f.status?.to ?? 999,
    beforeSeq: f.afterSeq ?? Number.MAX_SAFE_INTEGER,
    source: f.source,
  });
  const page = rows.slice(0, f.limit);
  return { requests: page.map(toSummary), nextSeq: rows.length > f.limit ? page[page.length - 1]!.seq : null };
}

/** The full record of the account's newest request with this id, or undefined. */
export function getRequest(deps: RequestLogDeps, accountId: string, requestId: string): RequestRecord | undefined {
  deps.requestLog.flush();
  const row = findRequestLogRow(deps.db, accountId, requestId);
  if (!row) return undefined;
  const detail = JSON.parse(row.detail) as { request: RecordedMessage; response: RecordedMessage };
  return { ...toSummary(row), request: detail.request, response: detail.response };
}
