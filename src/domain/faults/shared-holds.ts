import {
  deleteHeldRequest,
  deleteHeldRequestsOf,
  heldRequestCount,
  heldRequestIdsOf,
  insertHeldRequest,
} from '../../store/held-requests.js';
import type { Deps } from '../kernel/deps.js';
import type { HoldEnd, HoldOptions } from './held-requests.js';

// The requests injected faults hold, seen from every instance on the database. The instance that holds a request
// keeps it in memory (held-requests.ts) and writes a row for it while it waits; faults/held counts the rows of the
// account, and faults/release deletes them: the releasing instance lets its own go at once, and every other instance
// finds its rows gone at its next look (HeldRequests' poll) and lets its own go. A row outlives its request only when
// its instance was killed (`kill -9`): it is counted until the account's next release, which deletes it.

/** Holds a request of the account on this instance, with its row, until its wait ends; resolves how it ended. */
export async function holdRequest(
  deps: Deps,
  instance: string,
  accountId: string,
  opts: Omit<HoldOptions, 'id'>,
): Promise<HoldEnd> {
  const id = deps.ids.internalId('held');
  const lock = { account: accountId };
  await deps.transactions.run(
    ({ db }) => insertHeldRequest(db, { id, accountId, instance, atMs: deps.wallClock() }),
    lock,
  );
  try {
    return await deps.heldRequests.hold(accountId, { ...opts, id });
  } finally {
    // Already gone when a release ended the wait; a database out of reach leaves it to the account's next release.
    await deps.transactions.run(({ db }) => deleteHeldRequest(db, id), lock).catch(() => {});
  }
}

/** Lets every request the account holds, on any instance, go on; answers how many there were. */
export async function releaseHeldRequests(deps: Deps, accountId: string): Promise<number> {
  const released = await deps.transactions.run(({ db }) => deleteHeldRequestsOf(db, accountId), {
    account: accountId,
  });
  // This instance's own go at once; the others' at their next look.
  deps.heldRequests.release(accountId);
  return released;
}

/** How many requests the account holds now, on every instance. */
export async function heldRequestsOf(deps: Deps, accountId: string): Promise<number> {
  return await heldRequestCount(deps.db, accountId);
}

/** The ids of the requests this instance holds whose rows are still there (what HeldRequests' poll asks). */
export async function stillHeldBy(deps: Deps, instance: string): Promise<ReadonlySet<string>> {
  return new Set(await heldRequestIdsOf(deps.db, instance));
}
