import type { Socket } from 'node:net';

// What the tenant budget (middleware/tenant-budget.ts) keeps, a member of the server's deps.

/** What each tenant holds open now (deps.tenantHoldings). */
export class TenantHoldings {
  readonly inFlight = new Map<string, number>();
  readonly connections = new Map<string, number>();
  /** The tenant of each connection, by its socket (the socket's own lifetime: an entry goes with it). */
  readonly owner = new WeakMap<Socket, string>();
  /** The request a connection carries now: how it stops counting in flight (one request at a time on HTTP/1.1). */
  readonly current = new WeakMap<Socket, () => void>();
}
