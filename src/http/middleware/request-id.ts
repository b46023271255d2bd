import type { MiddlewareHandler } from 'hono';
import type { Ids } from '../../domain/ids.js';
import type { AppEnv } from '../context.js';

/** Every response carries X-Request-Id; a well-formed incoming one is kept so traces join up. */
export function requestId({
  ids,
  headerName = 'X-Request-Id',
}: {
  ids: Ids;
  headerName?: string;
}): MiddlewareHandler<AppEnv> {
  return async function requestId(c, next) {
    const incoming = c.req.header(headerName);
    const id = incoming && /^[A-Za-z0-9._-]{1,128}$/.test(incoming) ? incoming : 'req_' + ids.base62(20);
    c.set('requestId', id);
    // Set before the handler runs: a header added after the response exists makes @hono/node-server rebuild it
    // as a full Response object, which cost a fifth of a read's CPU time (bench/results.md).
    c.header(headerName, id);
    await next();
  };
}
