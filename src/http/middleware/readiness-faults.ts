import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../../domain/kernel/errors.js';
import { takeArmedFault } from '../../domain/readiness/runs.js';
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
    const take = (kind: 'drop' | 'error' | 'throttle') =>
      takeArmedFault(deps, kind, c.get('account').id, c.get('requestId'));
    if (!keyedWrite) {
      if (!take('throttle')) return next();
      c.header('Retry-After', String(INJECTED_RETRY_AFTER_SECONDS));
      noteAnswer(c, 'readiness', 'injected');
      return errorResponse(c, new DomainError('RATE_LIMITED'));
    }
    if (take('error')) {
      noteAnswer(c, 'readiness', 'injected');
      return errorResponse(c, new DomainError('SYSTEM_ERROR'));
    }
    await next();
    // Only a success is dropped: the point is a write that happened while the client never heard of it.
    if (c.res.status >= 200 && c.res.status < 300 && take('drop')) dropAnswer(c, 'readiness');
  };
}
