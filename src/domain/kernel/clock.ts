import { accountRow, clockFrozenAt, freezeClock, runClock, shiftClockBy, type ClockRow } from '../../store/accounts.js';
import { assertInTransaction } from '../../store/db.js';
import { findAccount } from '../accounts/accounts.js';
import type { Deps } from './deps.js';
import type { SeenClock } from './instance-state.js';
import { DomainError } from './errors.js';

export type ClockMode = 'running' | 'frozen';

// The account clock, one per account: wall time plus an offset, or frozen at an instant (it moves only when advanced).
// Two names for its two uses: `now` reads it; `catchUp` first runs the account's timers that fell due, then reads it.

/** The account time of a row holding the clock columns. */
const timeOf = (row: ClockRow, wallMs: number) => row.clock_frozen_at_ms ?? wallMs + row.clock_offset_ms;

export type { SeenClock };

/** The clock columns of a row read just now, at the current account-row version. */
export function seenClock(deps: Pick<Deps, 'accountRows'>, row: ClockRow): SeenClock {
  return {
    clock: { clock_offset_ms: row.clock_offset_ms, clock_frozen_at_ms: row.clock_frozen_at_ms },
    version: deps.accountRows.version,
  };
}

/**
 * The account's "now". Given `seen` (the clock columns a request's authentication read), the row is not read again
 * while no account row has changed since, the common case; the answer is exactly what reading the row would give.
 * Where other instances write the database too, authentication reads the row on every request (never from its cache,
 * store/accounts.ts `unchangedSince`), so `seen` is the clock as the request found it at its start.
 * An account that is gone (a child sandbox deleted while its request ran) fails as its key would now: 401.
 */
export async function now(
  deps: Pick<Deps, 'db' | 'wallClock' | 'accountRows'>,
  accountId: string,
  seen?: SeenClock,
): Promise<number> {
  if (seen !== undefined && seen.version === deps.accountRows.version) return timeOf(seen.clock, deps.wallClock());
  const row = await accountRow(deps.db, accountId);
  if (row === undefined) throw new DomainError('ACCOUNT_DELETED');
  return timeOf(row, deps.wallClock());
}

/**
 * Runs the account's timers that are due on its clock (each in its own transaction), then answers its "now".
 * `nextDueMs`: when the account's earliest foreground job is due, as the caller read it (none ran since); before it
 * nothing is due, and nothing is read.
 */
export async function catchUp(deps: Deps, accountId: string, seen?: SeenClock, nextDueMs?: number): Promise<number> {
  const nowMs = await now(deps, accountId, seen);
  if (nextDueMs === undefined || nextDueMs <= nowMs) await deps.jobs.runForegroundDue(deps, accountId, nowMs);
  return nowMs;
}

/** `catchUp` for work that may wait: the due timers run in slices in the tenant's turns, then the account's "now". */
async function caughtUp(deps: Deps, accountId: string): Promise<number> {
  const nextDueMs = await deps.jobs.caughtUp(accountId, (scope) => now(scope, accountId));
  return await catchUp(deps, accountId, undefined, nextDueMs);
}

async function clockMode(deps: Deps, accountId: string): Promise<ClockMode> {
  const frozen = await clockFrozenAt(deps.db, accountId);
  return frozen === null ? 'running' : 'frozen';
}

/** Switches between running and frozen without a jump: the account's "now" is the same either side. */
async function setClockMode(deps: Deps, accountId: string, mode: ClockMode, nowMs: number): Promise<void> {
  assertInTransaction(deps.db, 'setClockMode');
  if (mode === 'frozen') {
    await freezeClock(deps.db, accountId, nowMs);
  } else {
    await runClock(deps.db, accountId, nowMs - deps.wallClock());
  }
}

/** The latest an account clock may show: card ids and expiry dates (36 months on) keep four-digit years. */
const MAX_ACCOUNT_TIME_MS = Date.UTC(9000, 0, 1);

/** Refuses (400) an advance that would take the account clock past MAX_ACCOUNT_TIME_MS; changes nothing. */
async function assertAdvanceWithinLimit(deps: Deps, accountId: string, deltaMs: number): Promise<void> {
  if ((await now(deps, accountId)) + deltaMs > MAX_ACCOUNT_TIME_MS) throw new DomainError('CLOCK_LIMIT');
}

/** Moves the account clock forward by `deltaMs`, once every job due on the way has run. */
async function shiftClock(deps: Deps, accountId: string, deltaMs: number): Promise<void> {
  assertInTransaction(deps.db, 'shiftClock');
  await shiftClockBy(deps.db, accountId, deltaMs);
}

/**
 * sandbox/v1/clock: switches running/frozen, then advances, running every job that falls due on the way at its own
 * instant (webhook attempts included, so they are awaited); answers the clock as it then reads. An account's calls
 * run one at a time, in the order they came: two half-day advances sent at once used to run the same half-day of jobs
 * side by side and move the clock a whole day, leaving the second half-day to whichever request came next, in one go.
 */
export function setClock(
  deps: Deps,
  accountId: string,
  change: { mode?: ClockMode; advanceMs?: number },
): Promise<{ nowMs: number; mode: ClockMode }> {
  return deps.oneAtATime.run(`clock:${accountId}`, () => changeClock(deps, accountId, change));
}

async function changeClock(
  deps: Deps,
  accountId: string,
  { mode, advanceMs }: { mode?: ClockMode; advanceMs?: number },
): Promise<{ nowMs: number; mode: ClockMode }> {
  // An account deleted while its call waited for the one before (a child sandbox) is gone, as its key.
  if (!(await findAccount(deps, accountId))) throw new DomainError('SANDBOX_NOT_FOUND');
  if (advanceMs !== undefined) await assertAdvanceWithinLimit(deps, accountId, advanceMs);
  if (mode) {
    const nowMs = await caughtUp(deps, accountId);
    await deps.transactions.run((deps) => setClockMode(deps, accountId, mode, nowMs));
  }
  if (advanceMs !== undefined) {
    await deps.jobs.runDue(accountId, (await caughtUp(deps, accountId)) + advanceMs, { includeBackground: true });
    // A child sandbox can be deleted by its parent while a webhook attempt of the advance is awaited.
    if (!(await findAccount(deps, accountId))) throw new DomainError('SANDBOX_NOT_FOUND');
    await deps.transactions.run((deps) => shiftClock(deps, accountId, advanceMs));
    // Another instance may have advanced the same clock meanwhile (one at a time holds in this process only): what
    // fell due up to the "now" this call answers runs before it answers, whoever moved the clock there.
    const nowMs = await now(deps, accountId);
    await deps.jobs.runDue(accountId, nowMs, { includeBackground: true });
    return { nowMs, mode: await clockMode(deps, accountId) };
  }
  return { nowMs: await now(deps, accountId), mode: await clockMode(deps, accountId) };
}
