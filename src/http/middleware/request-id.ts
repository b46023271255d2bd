import type { MiddlewareHandler } from 'hono';
import type { Ids } from '../../domain/kernel/ids.js';
import type { Redactor } from '../../redaction/redactor.js';
import type { AppEnv } from '../context.js';

const WELL_FORMED = /^[A-Za-z0-9._-]{1,128}$/;

/** Every response carries X-Request-Id; a well-formed incoming one is kept so traces join up, unless it holds a secret. */
export function requestId({
  ids,
  redactor,
  headerName = 'X-Request-Id',
}: {
  ids: Ids;
  redactor: Redactor;
  headerName?: string;
}): MiddlewareHandler<AppEnv> {
  return async function requestId(c, next) {
    const incoming = c.req.header(headerName);
    // An id that holds a secret (a key, a card number) is replaced: it would go to every log and request-log record.
    const id =
      incoming && WELL_FORMED.test(incoming) && redactor.text(incoming) === incoming
        ? incoming
        : 'req_' + ids.base62(20);
    c.set('requestId', id);
    c.set('redactor', redactor);
    // Set before the handler runs: a header added after the response exists makes @hono/node-server rebuild it
    // as a full Response object, which cost a fifth of a read's CPU time (bench/results.md).
    c.header(headerName, id);
    await next();
  };
}
