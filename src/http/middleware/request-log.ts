import type { Context, MiddlewareHandler } from 'hono';
import { accountForKey } from '../../domain/api-keys.js';
import type { Deps } from '../../domain/deps.js';
import { requestLogOf } from '../../domain/request-log.js';
import type { AppEnv } from '../context.js';

/** Reads of the log itself are not recorded: `logs tail` polling it would otherwise fill the log with itself. */
const NOT_RECORDED = new Set(['/sandbox/v1/requests', '/sandbox/v1/requests/get']);
/** A body the handler left unread is read for the record only up to this size (a 413 is never read). */
const MAX_UNREAD_BODY_BYTES = 64 * 1024;

/**
 * Records every request authenticated to an account (mounted on /v1 and /sandbox/v1) in that account's request
 * log. It only takes references here: the body text the handler already read, the answer's body string, the
 * header objects; the request log redacts and writes them in a batch after the answer is on its way.
 */
export function requestLog(deps: Deps): MiddlewareHandler<AppEnv> {
  const log = requestLogOf(deps);
  return async function requestLog(c, next) {
    const startMs = performance.now();
    const atMs = deps.wallClock();
    await next();
    if (NOT_RECORDED.has(c.req.path)) return;
    const apiKey = c.req.header('x-api-key');
    // Set by the auth middleware; an answer given before it (an injected fault) is attributed by the key.
    const owner = c.get('account')
      ? { accountId: c.get('account').id, keyId: c.get('keyId') }
      : apiKey && c.res.status !== 401 && c.res.status !== 403
        ? accountForKey(deps, apiKey)
        : undefined;
    if (!owner) return;
    log.add({
      accountId: owner.accountId,
      requestId: c.get('requestId'),
      atMs,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      latencyMs: Math.round((performance.now() - startMs) * 10) / 10,
      keyId: owner.keyId ?? null,
      apiKey,
      requestHeaders: c.req.raw.headers,
      requestBody: await requestText(c),
      responseHeaders: c.res.headers,
      responseBody: await responseText(c.res),
    });
  };
}

/** The body text as the handler read it (Hono caches it); an unread small body is read now. */
async function requestText(c: Context<AppEnv>): Promise<string | null | undefined> {
  const cache = c.req.bodyCache;
  if (cache.text) return cache.text;
  if (cache.json) return JSON.stringify(await cache.json);
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return null;
  const length = Number(c.req.header('content-length') ?? NaN);
  if (!(length <= MAX_UNREAD_BODY_BYTES)) return length === 0 ? null : undefined;
  try {
    return await c.req.text();
  } catch {
    return undefined;
  }
}

/**
 * The answer's body text without consuming it. @hono/node-server's light Response keeps a string body in a
 * private cache that it writes from directly; touching `.body` or `.clone()` would turn it into a full web
 * Response (a fifth of a read's CPU, bench/results.md), so the string is taken from that cache. Any other
 * response (a plain web Response, as under `app.request()`) is cloned when it is JSON; a stream is not recorded.
 */
async function responseText(res: Response): Promise<string | null | undefined> {
  const cached = lightBody(res);
  if (cached !== NO_CACHE) return typeof cached === 'string' ? cached : cached === null ? null : undefined;
  if (res.body === null) return null;
  if (!/json/i.test(res.headers.get('content-type') ?? '') || res.bodyUsed) return undefined;
  return res.clone().text();
}

const NO_CACHE = Symbol('no cache');
let cacheSymbol: symbol | undefined;

function lightBody(res: Response): unknown {
  cacheSymbol ??= Object.getOwnPropertySymbols(res).find((s) => s.description === 'cache');
  const entry = cacheSymbol && (res as unknown as Record<symbol, unknown[] | undefined>)[cacheSymbol];
  return Array.isArray(entry) ? entry[1] : NO_CACHE;
}
