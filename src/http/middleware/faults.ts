import type { Context, MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { messageForCode } from '../../domain/kernel/errors.js';
import { anyArmedFault, takeFault } from '../../domain/faults/faults.js';
import type { ServerDeps } from '../server-deps.js';
import { waitInjected } from '../injected-wait.js';
import type { AppEnv, InjectedWait } from '../context.js';
import { errorBody } from '../errors.js';
import type { FaultEffect } from '../../request-log/captured-request.js';

const INJECTED_MESSAGE = 'Injected fault';

/**
 * Applies the calling account's injected faults (sandbox/v1/faults) to its request. Mount after authentication
 * and the rate limit: a faulted request is an authenticated request that spends the key's budget like any other.
 * `latencyMs` is the network's: the request waits that long on the wall clock, whatever the account clock does;
 * `hold` keeps it until the account releases it (faults/release, faults/clear, reset), so a test decides when it goes
 * on. On an idempotent operation the wait is handed to the idempotency runner, which waits after reserving the key,
 * so a concurrent retry sees 4212. `respond` answers without executing; `dropResponse` executes and commits, then
 * resets the connection without an answer. Operations the contract marks `faultable: false` (the faults helpers
 * themselves) are never given this step.
 */
export function faults(deps: ServerDeps, { idempotent = false } = {}): MiddlewareHandler<AppEnv> {
  return async function faults(c, next) {
    const path = c.req.path;
    // The common case, known without a query (deps.faultHint): no rule is armed on any account.
    if (deps.faultHint.armed === false || !anyArmedFault(deps)) return next();
    const accountId = c.get('account').id;
    const fault = deps.transactions.run(() => takeFault(deps, accountId, path));
    if (!fault) return next();
    const wait: InjectedWait | undefined =
      fault.hold || fault.latencyMs > 0 ? { latencyMs: fault.latencyMs, hold: fault.hold } : undefined;
    if (fault.respond) {
      if (wait) await waitInjected(c, deps, wait);
      const { httpStatus, code, message } = fault.respond;
      const body = errorBody(code, message ?? messageForCode(code) ?? INJECTED_MESSAGE);
      noteAnswer(c, 'faults', 'injected');
      return c.json(body, httpStatus as ContentfulStatusCode);
    }
    if (wait) {
      if (idempotent) c.set('injectedWait', wait);
      else await waitInjected(c, deps, wait);
    }
    await next();
    if (fault.dropResponse) dropAnswer(c, 'faults');
  };
}

/** Says, for the request log, what the client got of a request an injected fault touched (after any wait). */
export function noteAnswer(c: Context<AppEnv>, by: FaultEffect['by'], answer: FaultEffect['answer']): void {
  const effect = c.get('faultEffect');
  c.set('faultEffect', { by: effect?.by ?? by, wait: effect?.wait ?? null, answer });
}

/**
 * Resets the connection instead of answering (the operation has run and committed). Only a request served over a
 * socket can lose its answer: one made in-process (`app.request()`) gets it, and its record says so.
 */
export function dropAnswer(c: Context<AppEnv>, by: FaultEffect['by']): void {
  const socket = c.env?.incoming?.socket;
  if (!socket) return noteAnswer(c, by, 'sent');
  socket.destroy();
  noteAnswer(c, by, 'dropped');
}
