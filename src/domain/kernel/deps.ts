import type { Meter } from '../../metering/meter.js';
import type { Redactor } from '../../redaction/redactor.js';
import type { AccountRowWatch } from '../../store/accounts.js';
import type { Db, Store } from '../../store/db.js';
import type { TransactionRunner } from '../../store/transaction-runner.js';
import type { EventObservers, StoredEvent } from '../events/types.js';
import type { HeldRequests } from '../faults/held-requests.js';
import type { ReadinessPaths } from '../readiness/catalogue.js';
import type { Ids } from './ids.js';
import type { FaultHint, KeyCache, KeyPurges, ReadinessSending, ReadinessWindows } from './instance-state.js';
import type { FairShare, OneAtATime } from './fair-share.js';
import type { JobRunner } from './jobs.js';
import type { Logger } from './logger.js';
import type { ServerSecret } from './secrets.js';

/** The runner of transactions whose work is given `Scope` (the deps of the transaction): the HTTP layer's name for it. */
export type Transactions<Scope> = TransactionRunner<Scope>;

/** The settings the domain reads (the server's configuration holds them, among others). */
interface DomainConfig {
  /** Account seconds from card/deposit until the card is credited. */
  topUpSettleSeconds: number;
  /** Account seconds from card/cancel until the card is CANCELLED. */
  cancelSeconds: number;
  /** What one tenant (an account and its child sandboxes) may keep. */
  tenant: { requestLogBytes: number };
}

/**
 * What the domain is given, member by member: nothing reads Date.now() or Math.random() behind its back, and no
 * module keeps state of its own. The wiring (src/wiring.ts) builds each member once per server. Every member says
 * where its state lives:
 * - **shared**: in the database, so every server on it sees the same (what a deployment of several must agree on);
 * - **per instance**: in this process only (a cache that the database can always answer again, a count of what this
 *   process holds, or an object that works on the shared state);
 * - **constant**: fixed when the server starts, the same on every instance given the same configuration.
 */
export interface Deps {
  /**
   * Shared: the database every read and write goes to: the store itself (a statement on its own), or, in the deps
   * the transaction runner gives the work it runs, that transaction.
   */
  db: Db;
  /** Shared: the store as a whole (what opens, closes and names it); `db` outside any transaction. */
  store: Store;
  /**
   * Per instance: the server's own deps, outside any transaction (the deps a transaction's work is given are a copy
   * with `db` that transaction): for work that outlives the transaction it starts in (a purge a turn later).
   */
  readonly outside: Deps;
  /**
   * Per instance: the one transaction runner (store/transaction-runner.ts), immediate or in this turn's batch; in the
   * deps of a transaction, a runner of savepoints in it.
   */
  transactions: TransactionRunner<Deps>;
  /** Constant: the domain's settings. */
  config: DomainConfig;
  /** Shared: the server secret card numbers and key hashes derive from (the same wherever the database is opened). */
  secret: ServerSecret;
  /** Per instance: the source of random ids. */
  ids: Ids;
  /** Per instance: wall-clock Unix milliseconds; account clocks (shared: a column of each account) add to it. */
  wallClock: () => number;
  /**
   * Per instance: the runner of timers on the account clock (and the catch-ups of accounts it runs in slices now); the
   * timers themselves are shared (the jobs table), and so are the claims on those that wait on the network (each row
   * names the instance running it, until its lease runs out), so a timer runs once whichever instance runs it.
   */
  jobs: JobRunner<Deps>;
  /**
   * Per instance: this process's event loop, shared among tenants: work that can run long (an advance, a catch-up, a
   * snapshot import, a child's deletion) runs in slices, each in its tenant's turn (kernel/fair-share.ts).
   */
  fairShare: FairShare;
  /**
   * Per instance: work run one at a time per key in this process: an account's clock advances (so the clock never runs
   * ahead of its jobs), a tenant's snapshot imports (so two cannot both pass its bound on rows).
   */
  oneAtATime: OneAtATime;
  /** Per instance: the requests an injected fault holds in this process (a hold until released, a latency). */
  heldRequests: HeldRequests;
  /** Per instance: who is told of each event as it is written (tests hold every event to its contract). */
  events: EventObservers;
  /** Per instance: this process's log. */
  logger: Logger;
  /** Per instance: what this process counts for its operator (tenant budgets acting, webhook attempts' results). */
  meter: Meter;
  /** Constant: redaction by value, knowing the server's own secrets (admin token, bootstrap key). */
  redactor: Redactor;
  /**
   * Constant: delivery-only fields added to an event's data when its webhook body is built (the 3DS OTP, derived
   * on demand, never stored in the outbox).
   */
  eventEnrichers: readonly EventEnricher[];
  /** Constant: what contracts/index.json says a readiness run makes of each path. */
  readinessPaths: ReadinessPaths;
  /**
   * Per instance: moves on every change to an account or key row made through this process's connection, so that
   * what a request read of them stays valid while it has not moved (store/accounts.ts).
   */
  accountRows: AccountRowWatch;
  /** Per instance, a cache: what authenticating each key found, valid while `accountRows` has not moved. */
  keyCache: KeyCache;
  /** Per instance: the cadence of the keyed writes' purge of expired keys (idempotency/keys.ts). */
  keyPurges: KeyPurges;
  /** Per instance, a cache: whether any fault rule may be armed (false lets a request skip the faults query). */
  faultHint: FaultHint;
  /** Per instance, a cache: the accounts whose readiness window is open, and when it ends. */
  readinessWindows: ReadinessWindows;
  /** Per instance: the readiness runs whose test deliveries this process has on the wire. */
  readinessSending: ReadinessSending;
}

/** The delivery-only fields of one event, or undefined when it has none. */
export type EventEnricher = (deps: Deps, event: StoredEvent) => Promise<Record<string, unknown> | undefined>;
