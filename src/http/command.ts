import type { Context } from 'hono';
import * as clock from '../domain/kernel/clock.js';
import { DomainError } from '../domain/kernel/errors.js';
import type { ServerDeps } from './server-deps.js';
import { ClientGoneError } from './body-bounds.js';
import { clientWatch } from './client-gone.js';
import type { AppEnv, InjectedWait } from './context.js';

// The calling account's clock, as a handler reads it: from the account row its authentication read (read again only
// if an account row changed since: domain/kernel/clock.ts). Every read and write of an account starts at `catchUp`, which
// runs the account's due timers first; a write then runs in `deps.transactions`, the one transaction runner
// (store/transaction-runner.ts). Domain commands never open a transaction themselves.

/** The calling account's "now". */
export function now(c: Context<AppEnv>, deps: ServerDeps): number {
  return clock.now(deps, c.get('account').id, c.get('accountSeen'));
}

/** The calling account's "now" after its due timers ran. */
export function catchUp(c: Context<AppEnv>, deps: ServerDeps): number {
  return clock.catchUp(deps, c.get('account').id, c.get('accountSeen'));
}

/** Runs the calling account's command in the transaction runner, at the account's caught-up "now". */
export function runCommand<T>(c: Context<AppEnv>, deps: ServerDeps, command: (nowMs: number) => T): T {
  const nowMs = catchUp(c, deps);
  return deps.transactions.run(() => command(nowMs));
}

/**
 * Holds the request as its fault asks (domain/faults/held-requests.ts). An account deleted meanwhile (a child sandbox)
 * leaves a request whose key no longer authenticates, answered as such; a client that has gone leaves a request
 * nobody waits for, abandoned here (answered 499, which nobody receives).
 */
export async function waitInjected(c: Context<AppEnv>, deps: ServerDeps, wait: InjectedWait): Promise<void> {
  const fromMs = deps.wallClock();
  const end = await deps.heldRequests.hold(c.get('account').id, {
    untilWallMs: wait.hold ? undefined : fromMs + wait.latencyMs,
    watchClient: clientWatch(c),
  });
  const kind = wait.hold ? 'hold' : 'latency';
  c.set('faultEffect', { by: 'faults', wait: { kind, ms: deps.wallClock() - fromMs, ended: end }, answer: 'sent' });
  if (end === 'deleted') throw new DomainError('ACCOUNT_DELETED');
  if (end === 'gone') throw new ClientGoneError();
}
