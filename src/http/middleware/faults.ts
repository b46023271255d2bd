import type { MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { messageForCode } from '../../domain/errors.js';
import { anyArmedFault, takeFault } from '../../domain/faults.js';
import type { ServerDeps } from '../../server-deps.js';
import { transact } from '../command.js';
import type { AppEnv } from '../context.js';
import { errorBody } from '../errors.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const INJECTED_MESSAGE = 'Injected fault';

/**
 * Applies the calling account's injected faults (sandbox/v1/faults) to its request. Mount after authentication
 * and the rate limit: a faulted request is an authenticated request that spends the key's budget like any other.
 * Latency is real time (it holds a request in flight); on a keyed endpoint (`keyedPaths`) it is handed to the
 * idempotency runner, which waits after reserving the key, so a concurrent retry sees 4212. `respond` answers
 * without executing; `dropResponse` executes and commits, then resets the connection without an answer. The
 * faults helpers themselves are never faulted.
 */
export function faults(
  deps: ServerDeps,
  { keyedPaths = new Set<string>() }: { keyedPaths?: ReadonlySet<string> } = {},
): MiddlewareHandler<AppEnv> {
  return async function faults(c, next) {
    const path = c.req.path;
    if (path.startsWith('/sandbox/v1/faults') || !anyArmedFault(deps.db)) return next();
    const fault = transact(deps, () => takeFault(deps.db, c.get('account').id, path));
    if (!fault) return next();
    if (fault.respond) {
      if (fault.latencyMs > 0) await sleep(fault.latencyMs);
      const { httpStatus, code, message } = fault.respond;
      const body = errorBody(code, message ?? messageForCode(code) ?? INJECTED_MESSAGE);
      return c.json(body, httpStatus as ContentfulStatusCode);
    }
    if (fault.latencyMs > 0) {
      if (keyedPaths.has(path)) c.set('injectedLatencyMs', fault.latencyMs);
      else await sleep(fault.latencyMs);
    }
    await next();
    if (fault.dropResponse) c.env?.incoming?.socket?.destroy();
  };
}
