import type { Db } from '../../store/db.js';
import type { Deps } from '../kernel/deps.js';

// The test deliveries of readiness runs that are on the wire, in memory: a run is not done while they are, stop
// waits for them, and a tenant may have only so many at once. A restart forgets them, and the checks they leave
// without an answer read not_observed.

/** A tenant (an account and its child sandboxes) has at most this many runs with test deliveries on the wire. */
export const MAX_SENDING_PER_TENANT = 10;

interface Sending {
  tenantId: string;
  done: Promise<void>;
}

/** Per database: the runs whose test deliveries are on the wire, each with the promise of their end. */
const sending = new WeakMap<Db, Map<string, Sending>>();

function sendingOf(db: Db): Map<string, Sending> {
  let map = sending.get(db);
  if (!map) sending.set(db, (map = new Map()));
  return map;
}

/** Marks a run's deliveries as on the wire until `done` settles (it must never reject). */
export function trackSending(deps: Deps, runId: string, tenantId: string, done: Promise<void>): void {
  const map = sendingOf(deps.db);
  map.set(runId, { tenantId, done: done.finally(() => map.delete(runId)) });
}

/** How many of the tenant's runs have test deliveries on the wire. */
export function runsSending(deps: Deps, tenantId: string): number {
  let n = 0;
  for (const s of sendingOf(deps.db).values()) if (s.tenantId === tenantId) n++;
  return n;
}

/** Resolves once the run's deliveries are all answered (at once when none is on the wire). */
export async function deliveriesSent(deps: Deps, runId: string): Promise<void> {
  await sendingOf(deps.db).get(runId)?.done;
}

/** Whether the run's test deliveries are still on the wire. */
export const isSending = (deps: Deps, runId: string) => sendingOf(deps.db).has(runId);
