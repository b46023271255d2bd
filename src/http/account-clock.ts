import type { Context } from 'hono';
import * as clock from '../domain/kernel/clock.js';
import type { ServerDeps } from './server-deps.js';
import type { AppEnv } from './context.js';

// The calling account's clock, as a handler reads it: from the account row its authentication read (read again only
// if an account row changed since: domain/kernel/clock.ts). Every read and write of an account starts at
// `caughtUpNow`, which runs the account's due timers first.

/** The calling account's "now", as its authentication read the clock (its timers not run). */
export function accountNow(c: Context<AppEnv>, deps: ServerDeps): number {
  return clock.now(deps, c.get('account').id, c.get('accountSeen'));
}

/** The calling account's "now" after its due timers ran. */
export function caughtUpNow(c: Context<AppEnv>, deps: ServerDeps): number {
  return clock.catchUp(deps, c.get('account').id, c.get('accountSeen'));
}
