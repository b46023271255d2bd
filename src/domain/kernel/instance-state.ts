import type { ClockRow } from '../../store/accounts.js';
import type { Account } from '../accounts/account.js';

// The shapes of what a server keeps in memory for the domain, each a member of the deps (domain/kernel/deps.ts, which
// says of each whether it is per instance). Declared here, apart from the code that uses them, so the deps can name
// them without an import circle.

/** The account row's clock columns as a request read them, and the account-row version they were read at. */
export interface SeenClock {
  clock: ClockRow;
  version: number;
}

/** What authenticating a request's key gives: its account, the key's id, and the account clock as read. */
interface Authenticated {
  account: Account;
  keyId: string;
  /** The tenant the account belongs to: itself, or its parent for a child sandbox (every hosted budget is its). */
  tenantId: string;
  /** The request's "now" comes from this while no account row changes (clock.ts, `now`). */
  seen: SeenClock;
}

/**
 * What authenticating a request's key gives it: when the rows were read (not answered from the cache), also the due
 * instant of the account's earliest foreground job, read with them (Infinity: none).
 */
export type Authentication = Authenticated & { nextJobDueMs?: number };

/**
 * What authenticating each key found, valid while its `seen.version` is current. Kept by the key itself (in memory
 * only), so a hit costs no HMAC either (4 % of a read's CPU in a profile).
 */
export type KeyCache = Map<string, Authenticated>;

/**
 * `armed` is false once a query saw the faults table empty, until the next `setFaults` (the only writer that adds
 * rows). Lets every request skip the faults query in the common case. Deletes only make it pessimistic, a
 * rolled-back `setFaults` too: then the next request queries again.
 */
export interface FaultHint {
  armed: boolean | undefined;
}

/** The keyed writes this process has run since it started, counted for the cadence of the purge of expired keys. */
export interface KeyPurges {
  writes: number;
}

/**
 * The accounts with a readiness window not yet evaluated, and its end, so that a request of any other account (the
 * common case) never queries for armed faults. Read from the table when unknown (at start, after a restart);
 * starting, stopping or evaluating a run forgets it.
 */
export interface ReadinessWindows {
  byAccount: Map<string, number> | undefined;
}

/** A readiness run whose test deliveries are on the wire, and the promise of their end. */
interface Sending {
  tenantId: string;
  done: Promise<void>;
}

/** The readiness runs whose test deliveries are on the wire, by run id. */
export type ReadinessSending = Map<string, Sending>;
