import type { Context } from 'hono';
import { DomainError } from '../domain/kernel/errors.js';
import { holdRequest } from '../domain/faults/shared-holds.js';
import type { ServerDeps } from './server-deps.js';
import { ClientGoneError } from './body-bounds.js';
import { clientWatch } from './client-gone.js';
import type { AppEnv, InjectedWait } from './context.js';

/**
 * Holds the request as its fault asks (domain/faults/held-requests.ts). An account deleted meanwhile (a child
 * sandbox) leaves a request whose key no longer authenticates, answered as such; a client that has gone leaves a
 * request nobody waits for, abandoned here (answered 499, which nobody receives); a hold that its instance ended as
 * it began to stop leaves a request that did not run (503 with Retry-After: its retry goes to another instance).
 */
export async function waitInjected(c: Context<AppEnv>, deps: ServerDeps, wait: InjectedWait): Promise<void> {
  const fromMs = deps.wallClock();
  const end = await holdRequest(deps, deps.instance, c.get('account').id, {
    untilWallMs: wait.hold ? undefined : fromMs + wait.latencyMs,
    watchClient: clientWatch(c),
  });
  const kind = wait.hold ? 'hold' : 'latency';
  c.set('faultEffect', { by: 'faults', wait: { kind, ms: deps.wallClock() - fromMs, ended: end }, answer: 'sent' });
  if (end === 'deleted') throw new DomainError('ACCOUNT_DELETED');
  if (end === 'gone') throw new ClientGoneError();
  if (end === 'stopping') throw new DomainError('INSTANCE_STOPPING');
}
