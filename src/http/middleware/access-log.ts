import type { Context, MiddlewareHandler } from 'hono';
import type { UnofficialStatusCode } from 'hono/utils/http-status';
import type { Logger } from '../../domain/logger.js';
import type { Redactor } from '../../redaction/redactor.js';
import type { AppEnv } from '../context.js';
import { ClientGoneError } from '../body-bounds.js';

/**
 * One JSON line per request: request id, method, path, status, latency. The query string is left out (it is
 * where a careless client puts a key), the body is never read here, and at debug level the request headers are
 * logged with every secret header already censored at the source.
 */
export function accessLog({
  logger,
  redactor,
  now = () => performance.now(),
}: {
  logger: Logger;
  redactor: Redactor;
  now?: () => number;
}): MiddlewareHandler<AppEnv> {
  return async function accessLog(c, next) {
    const startMs = now();
    const requestId = c.get('requestId');
    const method = c.req.method;
    // The path as the client wrote it (percent-encoded, which can hide the separators of a card number).
    const path = redactor.url(rawPath(c.req.url));
    // Copying the headers costs on every request (1 % of a keyed write's CPU): only when debug lines are written.
    if (logger.isLevelEnabled?.('debug') !== false) {
      logger.debug(
        { requestId, method, path, headers: redactor.headers(Object.fromEntries(c.req.raw.headers)) },
        'request received',
      );
    }
    await next();
    const status = c.res.status;
    const latencyMs = Math.round((now() - startMs) * 10) / 10;
    const record = { requestId, method, path, status, latencyMs, keyId: c.get('keyId') };
    if (status === CLIENT_CLOSED_REQUEST) logger.info(record, 'request aborted by the client');
    else if (status >= 500) logger.warn(record, 'request failed');
    else logger.info(record, 'request completed');
  };
}

/** The status noted for a request whose client left before the answer (nginx's 499); nobody receives it. */
export const CLIENT_CLOSED_REQUEST = 499 as UnofficialStatusCode;

/**
 * Whether a request failed because its client dropped the connection (Node rejects the body read with
 * ECONNRESET "aborted"): the client's doing, not a server error, so no level-50 line and no 500.
 */
export function clientAborted(err: unknown, c: Context<AppEnv>): boolean {
  // Gone before the body was read (a latency fault held the request until after the client left).
  if (err instanceof ClientGoneError) return true;
  const incoming = c.env?.incoming;
  if (incoming && incoming.destroyed && !incoming.complete) return true;
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === 'ECONNRESET' && e.message === 'aborted';
}

/** The path of a request URL, as sent (no query: it is where a careless client puts a key). */
function rawPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const end = url.indexOf('?', start);
  return start < 0 ? '/' : url.slice(start, end < 0 ? undefined : end);
}
