import type { Context, MiddlewareHandler } from 'hono';
import type { UnofficialStatusCode } from 'hono/utils/http-status';
import type { Logger } from '../../domain/kernel/logger.js';
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
  const enabled = (level: string) => logger.isLevelEnabled?.(level) !== false;
  return async function accessLog(c, next) {
    const startMs = now();
    // Copying the headers costs on every request (1 % of a keyed write's CPU): only when debug lines are written.
    if (enabled('debug')) {
      logger.debug(
        {
          requestId: c.get('requestId'),
          method: c.req.method,
          path: redactor.url(rawPath(c.req.url)),
          headers: redactor.headers(Object.fromEntries(c.req.raw.headers)),
        },
        'request received',
      );
    }
    await next();
    const status = c.res.status;
    const level = status >= 500 ? 'warn' : 'info';
    // Nothing is built for a line the level does not print.
    if (!enabled(level)) return;
    const latencyMs = Math.round((now() - startMs) * 10) / 10;
    const line = {
      requestId: c.get('requestId'),
      method: c.req.method,
      path: redactor.url(rawPath(c.req.url)),
      status,
      latencyMs,
      keyId: c.get('keyId'),
    };
    if (status === CLIENT_CLOSED_REQUEST) logger.info(line, 'request aborted by the client');
    else if (level === 'warn') logger.warn(line, 'request failed');
    else logger.info(line, 'request completed');
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

/**
 * The path of a request URL as the client wrote it (percent-encoded, which can hide the separators of a card
 * number), without the query: it is where a careless client puts a key.
 */
function rawPath(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const end = url.indexOf('?', start);
  return start < 0 ? '/' : url.slice(start, end < 0 ? undefined : end);
}
