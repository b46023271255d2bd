import { sql, type Db } from './db.js';

// SQL of webhook deliveries (one per event of an account with an endpoint) and the log of every attempt.

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

/** A new delivery of an event; answers its id. */
/**
 * An event's delivery, as the account's webhook endpoint stands now: pending from `atMs` when it is enabled,
 * `disabled` when it is not, none when the account has no endpoint. One statement: the event's transaction reads no
 * endpoint row of its own. Answers the new delivery's id and state.
 */
export function insertDeliveryForEndpoint(
  db: Db,
  accountId: string,
  eventId: string,
  atMs: number,
): { id: number; state: DeliveryState } | undefined {
  return sql(
    db,
    `INSERT INTO webhook_deliveries (account_id, event_id, state, next_attempt_at_ms, created_at_ms)
     SELECT account_id, ?, CASE WHEN enabled = 1 THEN 'pending' ELSE 'disabled' END,
            CASE WHEN enabled = 1 THEN ? END, ?
       FROM webhook_configs WHERE account_id = ?
     RETURNING id, state`,
  ).get(eventId, atMs, atMs, accountId) as { id: number; state: DeliveryState } | undefined;
}

export function getDelivery(db: Db, id: number): DeliveryRow | undefined {
  return sql(db, 'SELECT * FROM webhook_deliveries WHERE id = ?').get(id) as DeliveryRow | undefined;
}

export function deliveryForEvent(db: Db, accountId: string, eventId: string): DeliveryRow | undefined {
  return sql(db, 'SELECT * FROM webhook_deliveries WHERE account_id = ? AND event_id = ?').get(accountId, eventId) as
    DeliveryRow | undefined;
}

/** Ends a delivery: no attempt follows. */
export function setDeliveryClosed(db: Db, id: number, state: Exclude<DeliveryState, 'pending'>): void {
  sql(db, 'UPDATE webhook_deliveries SET state = ?, next_attempt_at_ms = NULL WHERE id = ?').run(state, id);
}

export function setDeliveryAttempts(db: Db, id: number, attempts: number, nextAttemptAtMs: number | null): void {
  sql(db, 'UPDATE webhook_deliveries SET attempts = ?, next_attempt_at_ms = ? WHERE id = ?').run(
    attempts,
    nextAttemptAtMs,
    id,
  );
}

/** Pending deliveries of every account (the partial index on pending rows counts them). */
export function pendingDeliveryCount(db: Db): number {
  return sql(db, "SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'pending'").pluck().get() as number;
}

/** Every pending delivery of the account is cancelled. */
export function cancelPendingDeliveryRows(db: Db, accountId: string): void {
  sql(
    db,
    "UPDATE webhook_deliveries SET state = 'cancelled', next_attempt_at_ms = NULL WHERE account_id = ? AND state = 'pending'",
  ).run(accountId);
}

/**
 * Records an attempt once its request has answered. The account may be gone by then (a child sandbox deleted while
 * the request was on the wire): the row is then not written, since nothing would ever read or delete it.
 */
export function insertAttempt(db: Db, a: Omit<AttemptRow, 'id'>): void {
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

/** Pending deliveries with no job of kind `attemptJob` to attempt them (lost when a process died mid-attempt). */
export function deliveriesWithoutJob(db: Db, attemptJob: string): DeliveryRow[] {
  return sql(
    db,
    `SELECT d.* FROM webhook_deliveries d WHERE d.state = 'pending' AND NOT EXISTS
       (SELECT 1 FROM jobs j WHERE j.kind = ? AND j.account_id = d.account_id AND j.ref = CAST(d.id AS TEXT))`,
  ).all(attemptJob) as DeliveryRow[];
}

/** The sandbox reset hook: the account's deliveries and attempts (the endpoint config is kept). */
export function resetDeliveries(db: Db, accountId: string): void {
  sql(db, 'DELETE FROM webhook_attempts WHERE account_id = ?').run(accountId);
  sql(db, 'DELETE FROM webhook_deliveries WHERE account_id = ?').run(accountId);
}
