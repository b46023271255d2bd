import type { Redactor } from '../../redaction/redactor.js';
import type { Db } from '../../store/db.js';
import type { TransactionRunner } from '../../store/transaction-runner.js';
import type { EventBus, StoredEvent } from '../events/bus.js';
import type { HeldRequests } from '../faults/held-requests.js';
import type { Ids } from './ids.js';
import type { JobRunner } from './jobs.js';
import type { Logger } from './logger.js';
import type { Meter } from '../../metering/meter.js';
import type { ReadinessPaths } from '../readiness/catalogue.js';
import type { ServerSecret } from './secrets.js';

/** The settings the domain reads (the server's configuration holds them, among others). */
interface DomainConfig {
  /** Account seconds from card/deposit until the card is credited. */
  topUpSettleSeconds: number;
  /** Account seconds from card/cancel until the card is CANCELLED. */
  cancelSeconds: number;
  /** What one tenant (an account and its child sandboxes) may keep. */
  tenant: { requestLogBytes: number };
}

/** Everything the domain needs, passed in: nothing reads Date.now() or Math.random() behind its back. */
export interface Deps {
  db: Db;
  config: DomainConfig;
  secret: ServerSecret;
  ids: Ids;
  /** Wall-clock Unix milliseconds; account clocks are this plus an offset, or frozen. */
  wallClock: () => number;
  jobs: JobRunner;
  /** The one transaction runner (store/transaction-runner.ts): a transaction now, or in this turn's group commit. */
  transactions: TransactionRunner;
  /** The requests an injected fault holds in memory (a hold until released, a latency on the wall clock). */
  heldRequests: HeldRequests;
  events: EventBus;
  logger: Logger;
  /** What the operator's metrics count (tenant budgets acting, webhook attempts' results). */
  meter: Meter;
  /** Redaction by value, knowing the server's own secrets (admin token, bootstrap key): for what the domain keeps. */
  redactor: Redactor;
  /**
   * Delivery-only fields added to an event's data when its webhook body is built (the 3DS OTP, derived on
   * demand, never stored in the outbox). Fixed when the deps are made: nothing is added later.
   */
  eventEnrichers: readonly EventEnricher[];
  /** What contracts/index.json says a readiness run makes of each path: the contract decides, the domain judges. */
  readinessPaths: ReadinessPaths;
}

/** The delivery-only fields of one event, or undefined when it has none. */
export type EventEnricher = (deps: Deps, event: StoredEvent) => Record<string, unknown> | undefined;
