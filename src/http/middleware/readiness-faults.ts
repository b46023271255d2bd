import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { DomainError } from '../../domain/kernel/errors.js';
import { noteThrottledClientGone, takeArmedFault } from '../../domain/readiness/runs.js';
import { INJECTED_RETRY_AFTER_SECONDS } from '../../domain/readiness/catalogue.js';
import type { ServerDeps } from '../server-deps.js';
import type { AppEnv } from '../context.js';
import { errorResponse } from '../errors.js';
import { dropAnswer, noteAnswer } from './faults.js';

/**
 * The faults a readiness run arms on its account for its window (docs/readiness.md), beside the account's own
 * (sandbox/v1/faults, which they never show in nor clear): the first keyed card/create or card/deposit that succeeds
 * loses its answer (executed and committed, then the connection is reset, as `dropResponse` does); the next keyed
 * one after that gets a 500 without executing; the first read gets a 429 with Retry-After. A step of the operations
 * whose contract entry names what a run makes of them (`readiness`), after the account's own faults.
 */
export function readinessFaults(deps: ServerDeps, judgedAs: 'keyed-write' | 'read'): MiddlewareHandler<AppEnv> {
  return async function readinessFaults(c, next) {
    const keyedWrite = judgedAs === 'keyed-write' && Boolean(c.req.header('idempotency-key'));
    if (!keyedWrite && judgedAs !== 'read') return next();
    // The common case, known without a query: no readiness window of this account is open.
    const windows = deps.readinessWindows.byAccount;
    if (windows !== undefined && !windows.has(c.get('account').id)) return next();
    const take = async (kind: 'drop' | 'error' | 'throttle') =>
      await takeArmedFault(deps, kind, c.get('account').id, c.get('requestId'));
    if (!keyedWrite) {
      const runId = await take('throttle');
      if (!runId) return next();
      const noteGone = async () => {
        // From a socket's event: a throw here would be uncaught. A database closed meanwhile has nothing to note.
        if (!deps.store.open) return;
        try {
          await deps.transactions.run((deps) => noteThrottledClientGone(deps, runId));
        } catch (err) {
          deps.logger.error({ err, runId }, 'readiness: the close of the throttled client was not noted');
        }
      };
      watchForClose(c, () => void noteGone());
      c.header('Retry-After', String(INJECTED_RETRY_AFTER_SECONDS));
      noteAnswer(c, 'readiness', 'injected');
      return errorResponse(c, new DomainError('RATE_LIMITED'));
    }
    if (await take('error')) {
      noteAnswer(c, 'readiness', 'injected');
      return errorResponse(c, new DomainError('SYSTEM_ERROR'));
    }
    await next();
    // Only a success is dropped: the point is a write that happened while the client never heard of it.
    if (c.res.status >= 200 && c.res.status < 300 && (await take('drop'))) dropAnswer(c, 'readiness');
  };
}

/**
 * Calls `onClosed` once the client closes the connection the request came on (its end of it, or a reset): a client
 * that crashed on its 429, or a one-shot process. The server closing an idle connection itself (its keep-alive
 * timeout, making room) is no client leaving, and is not reported. In-process (`app.request()`) there is no
 * connection to watch.
 */
function watchForClose(c: Context, onClosed: () => void): void {
  const socket = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
  if (!socket || typeof socket.once !== 'function') return;
  const closedByClient = () => {
    stop();
    onClosed();
  };
  const stop = () => {
    socket.off('end', closedByClient);
    socket.off('error', closedByClient);
    socket.off('close', stop);
  };
  socket.once('end', closedByClient);
  socket.once('error', closedByClient);
  socket.once('close', stop);
}
