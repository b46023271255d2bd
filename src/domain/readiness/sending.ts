import { setTimeout as sleep } from 'node:timers/promises';
import { runOwesDeliveries } from '../../store/readiness.js';
import type { Deps } from '../kernel/deps.js';

// The test deliveries of readiness runs that this instance has on the wire, in memory: a tenant may have only so many
// at once here, and readiness/stop waits for them. Whether a run still owes deliveries is the database's to say
// (readiness_deliveries.pending, migration 071), whichever instance sends them: one that dies or stops with them on
// the wire leaves them to another, which takes them over (webhooks/readiness-takeover.ts).

/** A tenant (an account and its child sandboxes) has at most this many runs with test deliveries on the wire. */
export const MAX_SENDING_PER_TENANT = 10;

/** How often a stop looks again at a run whose deliveries another instance sends. */
const OTHERS_POLL_MS = 100;

/** Marks deliveries of a run as on the wire here until `done` settles (it must never reject). */
export function trackSending(deps: Deps, runId: string, tenantId: string, done: Promise<void>): void {
  const map = deps.readinessSending;
  // A run's deliveries taken over one by one are each tracked: the run is on the wire here until all are answered.
  const before = map.get(runId)?.done;
  const all = before ? Promise.all([before, done]).then(() => undefined) : done;
  const entry = {
    tenantId,
    done: all.finally(() => {
      if (map.get(runId) === entry) map.delete(runId);
    }),
  };
  map.set(runId, entry);
}

/** How many of the tenant's runs have test deliveries on the wire here. */
export function runsSending(deps: Deps, tenantId: string): number {
  let n = 0;
  for (const s of deps.readinessSending.values()) if (s.tenantId === tenantId) n++;
  return n;
}

/**
 * Resolves once the run owes no delivery: at once when none is on the wire; those sent here when they are answered;
 * those another instance sends when it has recorded them, or after `boundMs` (each is bounded by the webhook timeout,
 * and a dead sender's claim by its lease).
 */
export async function deliveriesSent(deps: Deps, runId: string, boundMs: number): Promise<void> {
  await deps.readinessSending.get(runId)?.done;
  const deadline = Date.now() + boundMs;
  while (Date.now() < deadline && deps.store.open && (await runOwesDeliveries(deps.db, runId))) {
    await sleep(OTHERS_POLL_MS);
  }
}
