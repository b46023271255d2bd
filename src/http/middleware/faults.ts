import type { MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { accountForKey } from '../../domain/api-keys.js';
import type { ServerDeps } from '../../server-deps.js';
import { anyArmedFault, takeFault } from '../../domain/faults.js';
import type { AppEnv } from '../context.js';
import { messageForCode } from '../../domain/errors.js';
import { errorBody } from '../errors.js';
import { KEYED_ENDPOINTS } from '../idempotency.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const KEYED_PATHS = new Set(KEYED_ENDPOINTS.map((e) => `/v1/${e}`));
const INJECTED_MESSAGE = 'Injected fault';

/**
 * Applies the calling account's injected faults (sandbox/v1/faults) to its request. Latency is real time (it
 * holds a request in flight); on a keyed endpoint it is served by the idempotency layer after the key is
 * reserved, so a concurrent retry sees 4212. `respond` answers without executing; `dropResponse` executes and
 * commits, then resets the connection without an answer. The faults helpers themselves are never faulted.
 */
export function faults(deps: ServerDeps): MiddlewareHandler<AppEnv> {
  return async function faults(c, next) {
    const path = c.req.path;
    const key = c.req.header('x-api-key');
    if (!key || path.startsWith('/sandbox/v1/faults') || !anyArmedFault(deps.db)) return next();
    const found = accountForKey(deps, key);
    const fault = found && takeFault(deps.db, found.accountId, path);
    if (!fault) return next();
    if (fault.respond) {
      if (fault.latencyMs > 0) await sleep(fault.latencyMs);
      const { httpStatus, code, message } = fault.respond;
      const body = errorBody(code, message ?? messageForCode(code) ?? INJECTED_MESSAGE);
      return c.json(body, httpStatus as ContentfulStatusCode);
    }
    if (fault.latencyMs > 0) {
      if (KEYED_PATHS.has(path)) c.set('faultLatencyMs', fault.latencyMs);
      else await sleep(fault.latencyMs);
    }
    await next();
    if (fault.dropResponse) c.env?.incoming?.socket?.destroy();
  };
}
