import type { Context, MiddlewareHandler } from 'hono';
import { accountForKey } from '../../domain/accounts/api-keys.js';
import type { RequestLogDeps } from '../../request-log/log.js';
import type { FaultEffect, HeaderText } from '../../request-log/captured-request.js';
import type { AppEnv } from '../context.js';

/** A body the handler left unread is read for the record only up to this size (a 413 is never read). */
const MAX_UNREAD_BODY_BYTES = 64 * 1024;

/**
 * Records every request authenticated to an account in that account's request log: a step of every /v1 and
 * /sandbox/v1 operation but those the contract marks `recorded: false` (reads of the log itself, which `logs tail`
 * polls, and of readiness runs, which are judged from the log and must not push out what they judge). It only takes a few flat strings here: the headers joined in one, the body text the handler already read,
 * the answer's body string. No Headers, Request or socket object, nor an array of header strings, is kept: a
 * pending record lives up to a second, so what it holds is promoted to the old generation, and the cost of that
 * grows with the number of objects (bench: holding records was most of the log's cost on small reads; building
 * them cost too little to measure; docs/developer-tools.md). The log redacts and writes in the background.
 */
export function requestLog(deps: RequestLogDeps): MiddlewareHandler<AppEnv> {
  const log = deps.requestLog;
  return async function requestLog(c, next) {
    const startMs = performance.now();
    const atMs = deps.wallClock();
    await next();
    const apiKey = c.req.header('x-api-key');
    // Set by the auth middleware; an answer given before it (an injected fault) is attributed by the key.
    const owner = c.get('account')
      ? { accountId: c.get('account').id, keyId: c.get('keyId') }
      : apiKey && c.res.status !== 401 && c.res.status !== 403
        ? accountForKey(deps, apiKey)
        : undefined;
    if (!owner) return;
    const latencyMs = Math.round((performance.now() - startMs) * 10) / 10;
    const res = c.res;
    const unread = requestText(c);
    const cached = lightBody(res);
    log.add({
      accountId: owner.accountId,
      requestId: c.get('requestId'),
      atMs,
      method: c.req.method,
      path: c.req.path,
      status: res.status,
      latencyMs,
      keyId: owner.keyId ?? null,
      requestHeaders: requestHeaderText(c),
      requestBody: typeof unread === 'object' && unread !== null ? await unread : unread,
      // Iterating the answer's headers sorts them once; @hono/node-server then writes them from that same sorted copy.
      responseHeaders: headerText(res.headers),
      responseBody:
        cached === NO_CACHE
          ? await fullResponseText(res)
          : typeof cached === 'string' || cached === null
            ? cached
            : undefined,
      fromConsole: c.env?.fromConsole === true,
      fault: faultJson(c.get('faultEffect')),
    });
  };
}

const faultJson = (effect: FaultEffect | undefined) => (effect === undefined ? null : JSON.stringify(effect));

/** The request's headers as the client sent them (node's raw list), else from the web Request (`app.request`). */
function requestHeaderText(c: Context<AppEnv>): HeaderText {
  const raw = (c.env as Partial<AppEnv['Bindings']> | undefined)?.incoming?.rawHeaders;
  return raw ? raw.join('\n') : headerText(c.req.raw.headers);
}

function headerText(headers: Headers): HeaderText {
  const out: string[] = [];
  headers.forEach((value, name) => out.push(name, value));
  return out.join('\n');
}

/** The body text as the handler read it (Hono caches it); an unread small body is read now. */
function requestText(c: Context<AppEnv>): string | null | undefined | Promise<string | null | undefined> {
  const cache = c.req.bodyCache;
  if (cache.text) return cache.text;
  if (cache.json) return cache.json.then((json: unknown) => JSON.stringify(json));
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return null;
  const length = Number(c.req.header('content-length') ?? NaN);
  if (!(length <= MAX_UNREAD_BODY_BYTES)) return length === 0 ? null : undefined;
  return c.req.text().catch(() => undefined);
}

/** Any other response (a plain web Response, as under `app.request()`) is cloned when it is JSON; a stream is not recorded. */
async function fullResponseText(res: Response): Promise<string | null | undefined> {
  if (res.body === null) return null;
  if (!/json/i.test(res.headers.get('content-type') ?? '') || res.bodyUsed) return undefined;
  return res.clone().text();
}

const NO_CACHE = Symbol('no cache');
let cacheSymbol: symbol | undefined;

/**
 * The body of @hono/node-server's light Response, or NO_CACHE. It keeps a string body in a private cache that it
 * writes from directly; touching `.body` or `.clone()` would turn it into a full web Response (a fifth of a read's
 * CPU, bench/results.md), so the string is taken from that cache. A body that is not a string is not recorded.
 */
function lightBody(res: Response): unknown {
  cacheSymbol ??= Object.getOwnPropertySymbols(res).find((s) => s.description === 'cache');
  const entry = cacheSymbol && (res as unknown as Record<symbol, unknown[] | undefined>)[cacheSymbol];
  return Array.isArray(entry) ? entry[1] : NO_CACHE;
}
