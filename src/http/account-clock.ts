import type { Context } from 'hono';
import * as clock from '../domain/kernel/clock.js';
import type { ServerDeps } from './server-deps.js';
import type { AppEnv } from './context.js';

// The calling account's clock, as a handler reads it: from the account row its authentication read (read again only
// if an account row changed since: domain/kernel/clock.ts). Every read and write of an account starts at
// `caughtUpNow`, which runs the account's due timers first.

/** The calling account's "now", as its authentication read the clock (its timers not run). */
export async function accountNow(c: Context<AppEnv>, deps: ServerDeps): Promise<number> {
  return await clock.now(deps, c.get('account').id, c.get('accountSeen'));
}

/**
 * The calling account's "now" after its due timers ran. The first call of a request trusts what its authentication
 * read of the account's next foreground job (`nextJobDueMs`, when nothing ran since): before that instant, nothing
 * can be due that was there when the request began, and a job scheduled meanwhile by a request running beside this
 * one is one that request could as well have scheduled after. Later calls (after a command, which may have scheduled
 * one) read as before.
 */
export async function caughtUpNow(c: Context<AppEnv>, deps: ServerDeps): Promise<number> {
  const nextDueMs = c.get('nextJobDueMs');
  c.set('nextJobDueMs', undefined);
  return await clock.catchUp(deps, c.get('account').id, c.get('accountSeen'), nextDueMs);
}
