import { OK } from '../http/envelope.js';
import type { ServerDeps } from '../http/server-deps.js';
import { getRequest, listRequests } from '../request-log/queries.js';
import type { Handlers } from '../http/router.js';
import type { RequestBody } from '../http/request-body.js';
import { DomainError, invalidField } from '../domain/kernel/errors.js';

const DEFAULT_LIMIT = 50;

/** `status`: one HTTP status (400) or a class ("4xx"). */
function readStatus(body: RequestBody<'POST /sandbox/v1/requests'>): { from: number; to: number } | undefined {
  const v = body.status;
  if (v === undefined) return undefined;
  if (typeof v === 'number') return { from: v, to: v };
  const from = Number(String(v)[0]) * 100;
  return { from, to: from + 99 };
}

/** Cursors are opaque to clients: the position of the last record of the previous page. */
const encodeCursor = (seq: number) => Buffer.from(`rl:${seq}`).toString('base64url');

function readCursor(body: RequestBody<'POST /sandbox/v1/requests'>): number | undefined {
  const text = body.cursor;
  if (text === undefined) return undefined;
  const m = /^rl:(\d{1,15})$/.exec(Buffer.from(text, 'base64url').toString());
  if (!m) throw invalidField('cursor is not one this server gave: pass nextCursor from the previous page');
  return Number(m[1]);
}

function ensureOn(deps: ServerDeps): void {
  if (!deps.config.requestLog) throw new DomainError('REQUEST_LOG_OFF');
}

/** requests (summaries, newest first, paged) and requests/get (one full record) of the caller's request log. */
export function requestsHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/requests': async (c, body) => {
      const filter = {
        limit: body.limit ?? DEFAULT_LIMIT,
        path: body.path,
        status: readStatus(body),
        afterSeq: readCursor(body),
        source: body.source as 'api' | 'console' | undefined,
      };
      ensureOn(deps);
      const page = listRequests(deps, c.get('account').id, filter);
      return c.json({
        ...OK,
        requests: page.requests,
        nextCursor: page.nextSeq === null ? null : encodeCursor(page.nextSeq),
      });
    },
    'POST /sandbox/v1/requests/get': async (c, body) => {
      const requestId = body.requestId;
      ensureOn(deps);
      const record = getRequest(deps, c.get('account').id, requestId);
      if (!record) throw new DomainError('REQUEST_NOT_FOUND');
      // The answer's own code would clash with the envelope's: it is named responseCode here.
      const { code, ...rest } = record;
      return c.json({ ...OK, ...rest, responseCode: code });
    },
  };
}
