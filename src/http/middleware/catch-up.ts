import type { MiddlewareHandler } from 'hono';
import { now } from '../../domain/kernel/clock.js';
import type { ServerDeps } from '../server-deps.js';
import type { AppEnv } from '../context.js';

/**
 * The step before a tenant API's handler: the calling account's timers that fell due on its clock run first, a
 * millisecond of them at once and the rest in slices in its tenant's turns (domain/kernel/jobs.ts, `caughtUp`), so a
 * backlog (a day of traffic on a running clock nobody touched, a restart) never holds the thread every tenant shares.
 * The handler's own catch-up (`caughtUpNow`, http/account-clock.ts) then finds only what fell due since, a few at most:
 * it knows when the next job is (from authentication's read, or the catch-up's own) and reads again only past it.
 */
export function catchUp(deps: ServerDeps): MiddlewareHandler<AppEnv> {
  return async function catchUp(c, next) {
    const accountId = c.get('account').id;
    const seen = c.get('accountSeen');
    // When jobs ran, what authentication read of the next one no longer holds: the catch-up says what does (what it
    // read last), or nothing when another request's catch-up ran them.
    c.set(
      'nextJobDueMs',
      await deps.jobs.caughtUp(accountId, (scope) => now(scope, accountId, seen), c.get('nextJobDueMs')),
    );
    await next();
  };
}
