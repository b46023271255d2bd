import type { RequestLogDeps } from './log.js';
import type { WindowLog } from '../domain/readiness/api-checks.js';
import { detailOf, rowsBetween } from '../store/request-log.js';

// The request log as a readiness run's checks read it: the requests of a window in the order they were recorded
// (after the pending records are written, so it sees every request answered before it), and a request's body.

export function windowLog(deps: RequestLogDeps): WindowLog {
  return {
    requests(accountId, fromMs, toMs) {
      deps.requestLog.flush();
      return rowsBetween(deps.db, accountId, fromMs, toMs).map((r) => ({
        seq: r.seq,
        requestId: r.request_id,
        atMs: r.at_ms,
        path: r.path,
        status: r.status,
        code: r.code,
        idempotencyKey: r.idempotency_key,
      }));
    },
    bodyOf(seq) {
      const detail = detailOf(deps.db, seq);
      return detail === undefined ? undefined : (JSON.parse(detail) as { request?: { body?: unknown } }).request?.body;
    },
  };
}
