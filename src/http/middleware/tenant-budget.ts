import type { MiddlewareHandler } from 'hono';
import { DomainError } from '../../domain/kernel/errors.js';
import type { ServerDeps } from '../server-deps.js';
import type { AppEnv } from '../context.js';
import { errorResponse } from '../errors.js';

// Hosted mode: what one tenant (an account and its live child sandboxes) may hold open at once, so that no tenant
// alone reaches the server's connection cap (docs/hosted.md). Without it one tenant held all 4,096 connections
// within 9 s: twelve children, each with a 25 s latency fault on card/list, sending 45 requests a second.
// - Requests in flight: counted from authentication to the answer, a fault's latency and a held 429 included, and
//   no longer once the client has gone (a client that hangs up on 32 held requests must not lock its tenant out).
// - Connections: a connection belongs to the tenant of the last request it carried, until it closes. A proxy's
//   connection carries one tenant's request after another's: it counts against the one whose request it carries,
//   not against whichever tenant happened to use it first.
// Past either bound the request is refused at once (429, Retry-After: 1) and its connection closed: the refusal
// costs the server nothing to hold. The operations contracts/index.json marks `inFlightExempt` (the clock, faults/
// release and faults/clear, reset) are outside the in-flight budget, never refused by it nor counted in it, so a
// tenant can always release what it holds; the rate limit and the connection bound still hold them.

/** What the tenant holds now (hosted mode counts; local mode holds nothing here). */
export function tenantHoldings(deps: ServerDeps, tenantId: string): { inFlight: number; connections: number } {
  const { inFlight, connections } = deps.tenantHoldings;
  return { inFlight: inFlight.get(tenantId) ?? 0, connections: connections.get(tenantId) ?? 0 };
}

/**
 * Mount after `apiKeyAuth` (which names the tenant) and before the rate limit (whose held 429s it counts). With
 * `inFlight: false` (an operation the contract marks `inFlightExempt`) only the connection bound applies.
 */
export function tenantBudget(deps: ServerDeps, { inFlight: counted = true } = {}): MiddlewareHandler<AppEnv> {
  const { inFlight, connections, owner, current } = deps.tenantHoldings;
  return async function tenantBudget(c, next) {
    if (deps.config.mode !== 'hosted') return next();
    // This instance's share of the tenant's budgets (domain/kernel/deployment.ts): the whole of it on one instance.
    const maxInFlight = deps.deployment.share(deps.config.tenant.maxInFlight);
    const maxConnections = deps.deployment.share(deps.config.tenant.maxConnections);
    const tenant = c.get('tenantId');
    const socket = c.env?.incoming?.socket;
    const previous = socket && owner.get(socket);
    if (socket && previous !== tenant) {
      const open = connections.get(tenant) ?? 0;
      if (open >= maxConnections) {
        deps.meter.refused('connections');
        return refuse(c, `${maxConnections} open connections`);
      }
      owner.set(socket, tenant);
      connections.set(tenant, open + 1);
      if (previous !== undefined) {
        decrement(connections, previous);
      } else {
        deps.connectionGuard?.claim(socket);
        // A client that has gone is waited for by nobody: the request its connection carried stops counting in
        // flight at once, whatever it still does. One listener per connection, not per request.
        socket.once('close', () => {
          decrement(connections, owner.get(socket)!);
          current.get(socket)?.();
        });
      }
    }
    // Outside the budget: never refused, never counted (the rate limit and the connection bound still hold them).
    if (!counted) return next();
    const running = inFlight.get(tenant) ?? 0;
    if (running >= maxInFlight) {
      deps.meter.refused('in_flight');
      return refuse(c, `${maxInFlight} requests in flight`);
    }
    inFlight.set(tenant, running + 1);
    let counting = true;
    const uncount = () => {
      if (!counting) return;
      counting = false;
      decrement(inFlight, tenant);
    };
    if (socket) current.set(socket, uncount);
    try {
      await next();
    } finally {
      if (socket && current.get(socket) === uncount) current.delete(socket);
      uncount();
    }
  };
}

function decrement(counts: Map<string, number>, tenant: string): void {
  const left = (counts.get(tenant) ?? 1) - 1;
  if (left <= 0) counts.delete(tenant);
  else counts.set(tenant, left);
}

function refuse(c: Parameters<MiddlewareHandler<AppEnv>>[0], what: string): Response {
  c.header('Retry-After', '1');
  c.header('Connection', 'close');
  return errorResponse(
    c,
    new DomainError(
      'RATE_LIMITED',
      `Too many requests: an account and its child sandboxes hold at most ${what} at once`,
    ),
  );
}
