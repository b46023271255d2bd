import {
  accountRowsVersion,
  clockFrozenAt,
  freezeClock,
  runClock,
  shiftClockBy,
  type ClockRow,
} from '../store/accounts.js';
import { assertInTransaction } from '../store/db.js';
import { accountClockNow, clockNow } from './accounts.js';
import type { Deps } from './deps.js';
import { DomainError } from './errors.js';

export type ClockMode = 'running' | 'frozen';

/**
 * The account clock: wall time plus an offset, or frozen at an instant (moves only when advanced). An account that is
 * gone (a child sandbox deleted while its request ran) fails as its key would now: 401.
 */
export function accountNowMs(deps: Deps, accountId: string): number {
  const now = accountClockNow(deps, accountId);
  if (now === undefined) throw new DomainError('ACCOUNT_DELETED');
  return now;
}

/** The account row's clock columns as a request read them, and the account-row version they were read at. */
export interface SeenClock {
  clock: ClockRow;
  version: number;
}

/** The clock columns of a row read just now, at the current account-row version. */
export function seenClock(deps: Pick<Deps, 'db'>, row: ClockRow): SeenClock {
  return {
    clock: { clock_offset_ms: row.clock_offset_ms, clock_frozen_at_ms: row.clock_frozen_at_ms },
    version: accountRowsVersion(deps.db),
  };
}

/**
 * `accountNowMs` without reading the row again when no account row has changed since `seen` was read (the common
 * case: a request's "now" comes from the row its authentication read). Exactly what reading the row would answer.
 */
export function accountNowSeen(deps: Deps, accountId: string, seen: SeenClock | undefined): number {
  if (seen !== undefined && seen.version === accountRowsVersion(deps.db)) return clockNow(seen.clock, deps.wallClock());
  return accountNowMs(deps, accountId);
}

export function clockMode(deps: Deps, accountId: string): ClockMode {
  const frozen = clockFrozenAt(deps.db, accountId);
  return frozen === null ? 'running' : 'frozen';
}

/** Switches between running and frozen without a jump: the account's "now" is the same either side. */
export function setClockMode(deps: Deps, accountId: string, mode: ClockMode): void {
  assertInTransaction(deps.db, 'setClockMode');
  const now = accountNowMs(deps, accountId);
  if (mode === 'frozen') {
    freezeClock(deps.db, accountId, now);
  } else {
    runClock(deps.db, accountId, now - deps.wallClock());
  }
}

/** The latest an account clock may show: card ids and expiry dates (36 months on) keep four-digit years. */
const MAX_ACCOUNT_TIME_MS = Date.UTC(9000, 0, 1);

/** Refuses (400) an advance that would take the account clock past MAX_ACCOUNT_TIME_MS; changes nothing. */
export function assertAdvanceWithinLimit(deps: Deps, accountId: string, deltaMs: number): void {
  if (accountNowMs(deps, accountId) + deltaMs > MAX_ACCOUNT_TIME_MS) throw new DomainError('CLOCK_LIMIT');
}

/**
 * Moves the account clock forward by `deltaMs`. The caller first runs every job that falls due on the way
 * (`jobs.runDue` up to the new "now"), in time order, each at its own due instant.
 */
export function shiftClock(deps: Deps, accountId: string, deltaMs: number): void {
  assertInTransaction(deps.db, 'shiftClock');
  shiftClockBy(deps.db, accountId, deltaMs);
}
