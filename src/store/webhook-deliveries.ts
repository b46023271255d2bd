import type { Db } from './seam.js';

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

/** A delivery made with its event: its id and first state. */
export interface NewDelivery {
  id: number;
  state: DeliveryState;
}

/**
 * The statement that makes an event's delivery as the account's webhook endpoint stands now: pending from `atMs` when
 * it is enabled, `disabled` when it is not, none when the account has no endpoint. It reads no endpoint row into the
 * event's transaction. Written with the event (store/events.ts); answers the delivery's id and state.
 */
export function deliveryForEndpoint(accountId: string, eventId: string, atMs: number) {
  return {
    sql: `INSERT INTO webhook_deliveries (account_id, event_id, state, next_attempt_at_ms, created_at_ms)
     SELECT account_id, ?, CASE WHEN enabled = 1 THEN 'pending' ELSE 'disabled' END,
            CASE WHEN enabled = 1 THEN CAST(? AS BIGINT) END, ?
       FROM webhook_configs WHERE account_id = ?
     RETURNING id, state`,
    params: [eventId, atMs, atMs, accountId],
  };
}

export async function getDelivery(db: Db, id: number): Promise<DeliveryRow | undefined> {
  return (await db.get('SELECT * FROM webhook_deliveries WHERE id = ?', [id])) as DeliveryRow | undefined;
}

export async function deliveryForEvent(db: Db, accountId: string, eventId: string): Promise<DeliveryRow | undefined> {
  return (await db.get('SELECT * FROM webhook_deliveries WHERE account_id = ? AND event_id = ?', [
    accountId,
    eventId,
  ])) as DeliveryRow | undefined;
}

/** Ends a delivery: no attempt follows. */
export async function setDeliveryClosed(db: Db, id: number, state: Exclude<DeliveryState, 'pending'>): Promise<void> {
  await db.run('UPDATE webhook_deliveries SET state = ?, next_attempt_at_ms = NULL WHERE id = ?', [state, id]);
}

export async function setDeliveryAttempts(
  db: Db,
  id: number,
  attempts: number,
  nextAttemptAtMs: number | null,
): Promise<void> {
  await db.run('UPDATE webhook_deliveries SET attempts = ?, next_attempt_at_ms = ? WHERE id = ?', [
    attempts,
    nextAttemptAtMs,
    id,
  ]);
}

/** Pending deliveries of every account (the partial index on pending rows counts them). */
export async function pendingDeliveryCount(db: Db): Promise<number> {
  return (await db.value("SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'pending'")) as number;
}

/** Every pending delivery of the account is cancelled. */
export async function cancelPendingDeliveryRows(db: Db, accountId: string): Promise<void> {
  await db.run(
    "UPDATE webhook_deliveries SET state = 'cancelled', next_attempt_at_ms = NULL WHERE account_id = ? AND state = 'pending'",
    [accountId],
  );
}

/**
 * Records an attempt once its request has answered. The account may be gone by then (a child sandbox deleted while
 * the request was on the wire): the row is then not written, since nothing would ever read or delete it.
 */
export async function insertAttempt(db: Db, a: Omit<AttemptRow, 'id'>): Promise<void> {
  await db.run(
    `INSERT INTO webhook_attempts (account_id, event_id, attempt, redelivery, url, at_ms, signed_at_s, status_code,
       latency_ms, error, next_retry_at_ms)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM accounts WHERE id = ?)`,
    [
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
    ],
  );
}

export async function attemptCount(db: Db, accountId: string, eventId: string): Promise<number> {
  return (await db.value('SELECT COUNT(*) FROM webhook_attempts WHERE account_id = ? AND event_id = ?', [
    accountId,
    eventId,
  ])) as number;
}

/** Attempts of the account (or of one event), newest first. */
export async function listAttempts(
  db: Db,
  accountId: string,
  opts: { eventId?: string; limit: number },
): Promise<AttemptRow[]> {
  return (
    opts.eventId
      ? await db.all('SELECT * FROM webhook_attempts WHERE account_id = ? AND event_id = ? ORDER BY id DESC LIMIT ?', [
          accountId,
          opts.eventId,
          opts.limit,
        ])
      : await db.all('SELECT * FROM webhook_attempts WHERE account_id = ? ORDER BY id DESC LIMIT ?', [
          accountId,
          opts.limit,
        ])
  ) as AttemptRow[];
}

/** Pending deliveries with no job of kind `attemptJob` to attempt them (lost when a process died mid-attempt). */
export async function deliveriesWithoutJob(db: Db, attemptJob: string): Promise<DeliveryRow[]> {
  return (await db.all(
    `SELECT d.* FROM webhook_deliveries d WHERE d.state = 'pending' AND NOT EXISTS
       (SELECT 1 FROM jobs j WHERE j.kind = ? AND j.account_id = d.account_id AND j.ref = CAST(d.id AS TEXT))`,
    [attemptJob],
  )) as DeliveryRow[];
}

/** The sandbox reset hook: the account's deliveries and attempts (the endpoint config is kept). */
export async function resetDeliveries(db: Db, accountId: string): Promise<void> {
  await db.run('DELETE FROM webhook_attempts WHERE account_id = ?', [accountId]);
  await db.run('DELETE FROM webhook_deliveries WHERE account_id = ?', [accountId]);
}
