import type { MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { messageForCode } from '../../domain/errors.js';
import { anyArmedFault, takeFault } from '../../domain/faults.js';
import type { ServerDeps } from '../../server-deps.js';
import { holdUntil, now } from '../command.js';
import type { AppEnv } from '../context.js';
import { errorBody } from '../errors.js';

const INJECTED_MESSAGE = 'Injected fault';

/**
 * Applies the calling account's injected faults (sandbox/v1/faults) to its request. Mount after authentication
 * and the rate limit: a faulted request is an authenticated request that spends the key's budget like any other.
 * Latency runs on the account clock, as every timer does: the request is held until the account's clock has moved
 * `latencyMs` past the moment it arrived (with wall time while the clock runs; only by an advance while it is
 * frozen). On an idempotent operation it is handed to the idempotency runner, which holds the request after
 * reserving the key, so a concurrent retry sees 4212. `respond` answers without executing; `dropResponse` executes
 * and commits, then resets the connection without an answer. Operations the contract marks `faultable: false` (the
 * faults helpers themselves) are never given this step.
 */
export function faults(deps: ServerDeps, { idempotent = false } = {}): MiddlewareHandler<AppEnv> {
  return async function faults(c, next) {
    const path = c.req.path;
    if (!anyArmedFault(deps)) return next();
    const accountId = c.get('account').id;
    const fault = deps.writes.transaction(() => takeFault(deps, accountId, path));
    if (!fault) return next();
    if (fault.respond) {
      if (fault.latencyMs > 0) await holdUntil(c, deps, now(c, deps) + fault.latencyMs);
      const { httpStatus, code, message } = fault.respond;
      const body = errorBody(code, message ?? messageForCode(code) ?? INJECTED_MESSAGE);
      return c.json(body, httpStatus as ContentfulStatusCode);
    }
    if (fault.latencyMs > 0) {
      if (idempotent) c.set('injectedLatencyMs', fault.latencyMs);
      else await holdUntil(c, deps, now(c, deps) + fault.latencyMs);
    }
    await next();
    if (fault.dropResponse) c.env?.incoming?.socket?.destroy();
  };
}
