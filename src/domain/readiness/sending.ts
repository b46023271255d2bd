import type { Deps } from '../kernel/deps.js';

// The test deliveries of readiness runs that are on the wire, in memory: a run is not done while they are, stop
// waits for them, and a tenant may have only so many at once. A restart forgets them, and the checks they leave
// without an answer read not_observed.

/** A tenant (an account and its child sandboxes) has at most this many runs with test deliveries on the wire. */
export const MAX_SENDING_PER_TENANT = 10;

/** Marks a run's deliveries as on the wire until `done` settles (it must never reject). */
export function trackSending(deps: Deps, runId: string, tenantId: string, done: Promise<void>): void {
  const map = deps.readinessSending;
  map.set(runId, { tenantId, done: done.finally(() => map.delete(runId)) });
}

/** How many of the tenant's runs have test deliveries on the wire. */
export function runsSending(deps: Deps, tenantId: string): number {
  let n = 0;
  for (const s of deps.readinessSending.values()) if (s.tenantId === tenantId) n++;
  return n;
}

/** Resolves once the run's deliveries are all answered (at once when none is on the wire). */
export async function deliveriesSent(deps: Deps, runId: string): Promise<void> {
  await deps.readinessSending.get(runId)?.done;
}

/** Whether the run's test deliveries are still on the wire. */
export const isSending = (deps: Deps, runId: string) => deps.readinessSending.has(runId);
