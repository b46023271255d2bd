import type { Context } from 'hono';
import { accountNowSeen } from '../domain/clock.js';
import { DomainError } from '../domain/errors.js';
import type { ServerDeps } from '../server-deps.js';
import { ClientGoneError } from './body-bounds.js';
import { clientWatch } from './client-gone.js';
import type { AppEnv, InjectedWait } from './context.js';

// The route's runners. A handler parses and validates its input, then hands the domain command to a runner:
// the runner brings the account up to its clock (its due timers run first, each in its own transaction) and
// opens the one SQLite transaction the command runs in. Domain commands never open one themselves.

/**
 * The calling account's "now", from the account row its authentication read (read again only if an account row
 * changed since: clock.ts, `accountNowSeen`).
 */
export function accountNow(c: Context<AppEnv>, deps: ServerDeps): number {
  return accountNowSeen(deps, c.get('account').id, c.get('accountSeen'));
}

/** The calling account's "now" after its due timers ran: every read and write of an account starts here. */
export function caughtUpNow(c: Context<AppEnv>, deps: ServerDeps): number {
  deps.jobs.runForegroundDue(c.get('account').id, accountNow(c, deps));
  return accountNow(c, deps);
}

/** Runs an operator mutation (no account clock) in one transaction. */
export function transact<T>(deps: ServerDeps, command: () => T): T {
  return deps.writes.transact(command);
}

/** Runs the calling account's unkeyed mutation in one transaction, at the account's caught-up "now". */
export function runCommand<T>(c: Context<AppEnv>, deps: ServerDeps, command: (nowMs: number) => T): T {
  const nowMs = caughtUpNow(c, deps);
  return transact(deps, () => command(nowMs));
}

/**
 * Holds the request as its fault asks (domain/held-requests.ts). An account deleted meanwhile (a child sandbox)
 * leaves a request whose key no longer authenticates, answered as such; a client that has gone leaves a request
 * nobody waits for, abandoned here (answered 499, which nobody receives).
 */
export async function waitInjected(c: Context<AppEnv>, deps: ServerDeps, wait: InjectedWait): Promise<void> {
  const end = await deps.heldRequests.hold(c.get('account').id, {
    untilWallMs: wait.hold ? undefined : deps.wallClock() + wait.latencyMs,
    watchClient: clientWatch(c),
  });
  if (end === 'deleted') throw new DomainError('ACCOUNT_DELETED');
  if (end === 'gone') throw new ClientGoneError();
}
