import type { Deps } from './deps.js';
import type { StoredEvent } from './events.js';
import { assertInTransaction, sql, type Db } from '../store/db.js';
import { deleteWebhookConfig, findWebhookConfig } from './webhook-config.js';

// The delivery state of each event, its retry state machine, and the log of every attempt. The sending (network)
// is the webhooks module's (src/webhooks/attempt.ts), which reports each outcome here.

export const ATTEMPT_JOB = 'webhook.attempt';

/** Delays before retries 1..6, each counted from the previous attempt, in account seconds (spec Events, rule 1). */
const RETRY_DELAYS_SECONDS = [60, 300, 1800, 7200, 18_000, 36_000] as const;
const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'cancelled' | 'disabled';

export interface DeliveryRow {
  id: number;
  account_id: string;
  event_id: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at_ms: number | null;
  created_at_ms: number;
}

export interface AttemptRow {
  id: number;
  account_id: string;
  event_id: string;
  attempt: number;
  redelivery: number;
  url: string;
  at_ms: number;
  signed_at_s: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  next_retry_at_ms: number | null;
}

/**
 * The EventBus listener, inside the event's own transaction: an event of an account with an enabled endpoint gets
 * a pending delivery and a first attempt due at the event's instant; a disabled endpoint records the event as not
 * delivered. Nothing here touches the network, so the request that caused the event never waits on it.
 */
export function recordDelivery(deps: Deps, db: Db, event: StoredEvent): void {
  const config = findWebhookConfig(deps, event.accountId);
  if (!config) return;
  const atMs = event.created * 1000;
  const state: DeliveryState = config.enabled ? 'pending' : 'disabled';
  const { lastInsertRowid } = sql(
    db,
    `INSERT INTO webhook_deliveries (account_id, event_id, state, next_attempt_at_ms, created_at_ms)
     VALUES (?, ?, ?, ?, ?)`,
  ).run(event.accountId, event.id, state, config.enabled ? atMs : null, atMs);
  if (config.enabled) deps.jobs.schedule(db, event.accountId, ATTEMPT_JOB, String(lastInsertRowid), atMs);
}

export function getDelivery(db: Db, id: number): DeliveryRow | undefined {
  return sql(db, 'SELECT * FROM webhook_deliveries WHERE id = ?').get(id) as DeliveryRow | undefined;
}

export function deliveryForEvent(db: Db, accountId: string, eventId: string): DeliveryRow | undefined {
  return sql(db, 'SELECT * FROM webhook_deliveries WHERE account_id = ? AND event_id = ?').get(accountId, eventId) as
    DeliveryRow | undefined;
}

/** Ends a delivery (delivered, failed, cancelled or disabled) and drops its timer. */
export function closeDelivery(deps: Deps, delivery: DeliveryRow, state: Exclude<DeliveryState, 'pending'>): void {
  sql(deps.db, 'UPDATE webhook_deliveries SET state = ?, next_attempt_at_ms = NULL WHERE id = ?').run(
    state,
    delivery.id,
  );
  deps.jobs.cancel(deps.db, delivery.account_id, ATTEMPT_JOB, String(delivery.id));
}

/**
 * The retry state machine: records a scheduled attempt's outcome and decides what follows, in one transaction.
 * Acknowledged: delivered. Failed: the next retry is planned RETRY_DELAYS_SECONDS after this attempt, or, after
 * MAX_ATTEMPTS, the delivery has failed. A DELETE or reset while the request was on the wire wins: the attempt is
 * logged and nothing more is planned.
 */
export function recordScheduledAttempt(
  deps: Deps,
  deliveryId: number,
  attempt: Omit<AttemptRow, 'id' | 'attempt' | 'next_retry_at_ms'>,
  acknowledged: boolean,
): void {
  deps.db.transaction(() => {
    const row = {
      ...attempt,
      attempt: attemptCount(deps.db, attempt.account_id, attempt.event_id) + 1,
      next_retry_at_ms: null as number | null,
    };
    const now = getDelivery(deps.db, deliveryId);
    if (!now || now.state !== 'pending') return insertAttempt(deps.db, row);
    const attempts = now.attempts + 1;
    if (acknowledged) {
      closeDelivery(deps, now, 'delivered');
    } else if (attempts >= MAX_ATTEMPTS) {
      closeDelivery(deps, now, 'failed');
    } else {
      row.next_retry_at_ms = row.at_ms + RETRY_DELAYS_SECONDS[attempts - 1]! * 1000;
      deps.jobs.schedule(deps.db, now.account_id, ATTEMPT_JOB, String(now.id), row.next_retry_at_ms);
    }
    sql(deps.db, 'UPDATE webhook_deliveries SET attempts = ?, next_attempt_at_ms = ? WHERE id = ?').run(
      attempts,
      row.next_retry_at_ms,
      now.id,
    );
    insertAttempt(deps.db, row);
  })();
}

/**
 * An extra attempt outside the schedule (sandbox/v1/webhook/redeliver): success ends a pending delivery (its
 * remaining retries are dropped); failure leaves the schedule as it was. Answers the attempt as recorded.
 */
export function recordRedelivery(
  deps: Deps,
  attempt: Omit<AttemptRow, 'id' | 'attempt' | 'next_retry_at_ms'>,
  acknowledged: boolean,
): Omit<AttemptRow, 'id'> {
  return deps.db.transaction(() => {
    const row = {
      ...attempt,
      attempt: attemptCount(deps.db, attempt.account_id, attempt.event_id) + 1,
      next_retry_at_ms: null,
    };
    insertAttempt(deps.db, row);
    const delivery = deliveryForEvent(deps.db, attempt.account_id, attempt.event_id);
    if (delivery?.state === 'pending' && acknowledged) closeDelivery(deps, delivery, 'delivered');
    return row;
  })();
}

/** DELETE /v1/webhook: the endpoint goes, and every pending retry of the account stops with it. */
export function removeWebhook(deps: Deps, accountId: string): void {
  assertInTransaction(deps.db, 'removeWebhook');
  deleteWebhookConfig(deps, accountId);
  cancelPendingDeliveries(deps, accountId);
}

/** Every pending retry of the account stops. */
function cancelPendingDeliveries(deps: Deps, accountId: string): void {
  sql(
    deps.db,
    "UPDATE webhook_deliveries SET state = 'cancelled', next_attempt_at_ms = NULL WHERE account_id = ? AND state = 'pending'",
  ).run(accountId);
  sql(deps.db, 'DELETE FROM jobs WHERE account_id = ? AND kind = ?').run(accountId, ATTEMPT_JOB);
}

/**
 * Records an attempt once its request has answered. The account may be gone by then (a child sandbox deleted while
 * the request was on the wire): the row is then not written, since nothing would ever read or delete it.
 */
function insertAttempt(db: Db, a: Omit<AttemptRow, 'id'>): void {
  sql(
    db,
    `INSERT INTO webhook_attempts (account_id, event_id, attempt, redelivery, url, at_ms, signed_at_s, status_code,
       latency_ms, error, next_retry_at_ms)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM accounts WHERE id = ?)`,
  ).run(
    a.account_id,
    a.event_id,
    a.attempt,
    a.redelivery,
    a.url,
    a.at_ms,
    a.signed_at_s,
    a.status_code,
    a.latency_ms,
    a.error,
    a.next_retry_at_ms,
    a.account_id,
  );
}

export function attemptCount(db: Db, accountId: string, eventId: string): number {
  return sql(db, 'SELECT COUNT(*) FROM webhook_attempts WHERE account_id = ? AND event_id = ?')
    .pluck()
    .get(accountId, eventId) as number;
}

/** Attempts of the account (or of one event), newest first. */
export function listAttempts(db: Db, accountId: string, opts: { eventId?: string; limit: number }): AttemptRow[] {
  return (
    opts.eventId
      ? sql(db, 'SELECT * FROM webhook_attempts WHERE account_id = ? AND event_id = ? ORDER BY id DESC LIMIT ?').all(
          accountId,
          opts.eventId,
          opts.limit,
        )
      : sql(db, 'SELECT * FROM webhook_attempts WHERE account_id = ? ORDER BY id DESC LIMIT ?').all(
          accountId,
          opts.limit,
        )
  ) as AttemptRow[];
}

/**
 * Start-up repair: the JobRunner deletes a background job's row before running it, so a process killed during an
 * attempt leaves a pending delivery with no timer. Each such delivery gets its job back, due at its next attempt.
 * Returns how many were restored.
 */
export function restoreLostAttempts(deps: Deps): number {
  const lost = sql(
    deps.db,
    `SELECT d.* FROM webhook_deliveries d WHERE d.state = 'pending' AND NOT EXISTS
       (SELECT 1 FROM jobs j WHERE j.kind = ? AND j.account_id = d.account_id AND j.ref = CAST(d.id AS TEXT))`,
  ).all(ATTEMPT_JOB) as DeliveryRow[];
  assertInTransaction(deps.db, 'restoreLostAttempts');
  for (const d of lost) {
    deps.jobs.schedule(deps.db, d.account_id, ATTEMPT_JOB, String(d.id), d.next_attempt_at_ms ?? d.created_at_ms);
  }
  return lost.length;
}

/** The sandbox reset hook: this module's per-account rows (the endpoint config is kept, as behaviour.md says). */
export function resetDeliveries(db: Db, accountId: string): void {
  sql(db, 'DELETE FROM webhook_attempts WHERE account_id = ?').run(accountId);
  sql(db, 'DELETE FROM webhook_deliveries WHERE account_id = ?').run(accountId);
}
