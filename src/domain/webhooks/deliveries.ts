import type { Deps } from '../kernel/deps.js';
import type { StoredEvent } from '../events/types.js';
import { assertInTransaction, lockFirstStart } from '../../store/db.js';
import { deleteJobsOfKind, holdsJob } from '../../store/jobs.js';
import { deleteWebhookConfig } from '../../store/webhook-config.js';
import {
  attemptCount,
  cancelPendingDeliveryRows,
  deliveriesWithoutJob,
  deliveryForEvent,
  getDelivery,
  insertAttempt,
  listAttempts,
  setDeliveryAttempts,
  setDeliveryClosed,
  type AttemptRow,
  type DeliveryRow,
  type DeliveryState,
  type NewDelivery,
} from '../../store/webhook-deliveries.js';

// The delivery state of each event, its retry state machine, and the log of every attempt. The sending (network)
// is the webhooks module's (src/webhooks/attempt.ts), which reports each outcome here.

export const ATTEMPT_JOB = 'webhook.attempt';

/** Delays before retries 1..6, each counted from the previous attempt, in account seconds (spec Events, rule 1). */
const RETRY_DELAYS_SECONDS = [60, 300, 1800, 7200, 18_000, 36_000] as const;
const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

// The rows as the store reads them, for the webhooks module and the routes.
export type { AttemptRow, DeliveryRow, DeliveryState };
export { getDelivery };

/**
 * Whether `holder` (an instance) still holds the claim on an attempt's job: its recording transaction asks, with the
 * row locked on PostgreSQL, so an attempt whose claim was handed back or taken over records nothing.
 */
export function holdsAttemptClaim(deps: Deps, jobId: number, holder: string): Promise<boolean> {
  return holdsJob(deps.db, jobId, holder);
}

/**
 * Called by emitEvent, inside the event's own transaction, with the delivery written with the event (a pending one
 * when the account's endpoint is enabled, a disabled one when it is not, none without an endpoint): a pending
 * delivery's first attempt is due at the event's instant. Nothing here touches the network, so the request that
 * caused the event never waits on it.
 */
export async function scheduleFirstAttempt(
  deps: Deps,
  event: StoredEvent,
  delivery: NewDelivery | undefined,
): Promise<void> {
  if (delivery?.state === 'pending')
    await deps.jobs.schedule(deps.db, event.accountId, ATTEMPT_JOB, String(delivery.id), event.created * 1000);
}

/** Ends a delivery (delivered, failed, cancelled or disabled) and drops its timer. */
export async function closeDelivery(
  deps: Deps,
  delivery: DeliveryRow,
  state: Exclude<DeliveryState, 'pending'>,
): Promise<void> {
  await setDeliveryClosed(deps.db, delivery.id, state);
  await deps.jobs.cancel(deps.db, delivery.account_id, ATTEMPT_JOB, String(delivery.id));
}

/**
 * The retry state machine: records a scheduled attempt's outcome and decides what follows, in one transaction.
 * Acknowledged: delivered. Failed: the next retry is planned RETRY_DELAYS_SECONDS after this attempt, or, after
 * MAX_ATTEMPTS, the delivery has failed. A DELETE or reset while the request was on the wire wins: the attempt is
 * logged and nothing more is planned.
 */
export async function recordScheduledAttempt(
  deps: Deps,
  deliveryId: number,
  attempt: Omit<AttemptRow, 'id' | 'attempt' | 'next_retry_at_ms'>,
  acknowledged: boolean,
): Promise<void> {
  assertInTransaction(deps.db, 'recordScheduledAttempt');
  const row = {
    ...attempt,
    attempt: (await attemptCount(deps.db, attempt.account_id, attempt.event_id)) + 1,
    next_retry_at_ms: null as number | null,
  };
  const now = await getDelivery(deps.db, deliveryId);
  if (!now || now.state !== 'pending') return await insertAttempt(deps.db, row);
  const attempts = now.attempts + 1;
  deps.meter.delivered(acknowledged ? 'delivered' : 'failed');
  if (acknowledged) {
    await closeDelivery(deps, now, 'delivered');
  } else if (attempts >= MAX_ATTEMPTS) {
    deps.meter.delivered('gave_up');
    await closeDelivery(deps, now, 'failed');
  } else {
    row.next_retry_at_ms = row.at_ms + RETRY_DELAYS_SECONDS[attempts - 1]! * 1000;
    // The retry replaces the attempt's own job (still there, claimed, while it runs) in this transaction, so no
    // instance can run this attempt again once its outcome is recorded.
    await deps.jobs.cancel(deps.db, now.account_id, ATTEMPT_JOB, String(now.id));
    await deps.jobs.schedule(deps.db, now.account_id, ATTEMPT_JOB, String(now.id), row.next_retry_at_ms);
  }
  await setDeliveryAttempts(deps.db, now.id, attempts, row.next_retry_at_ms);
  await insertAttempt(deps.db, row);
}

/**
 * An extra attempt outside the schedule (sandbox/v1/webhook/redeliver): success ends a pending delivery (its
 * remaining retries are dropped); failure leaves the schedule as it was. Answers the attempt as recorded.
 */
export async function recordRedelivery(
  deps: Deps,
  attempt: Omit<AttemptRow, 'id' | 'attempt' | 'next_retry_at_ms'>,
  acknowledged: boolean,
): Promise<Omit<AttemptRow, 'id'>> {
  assertInTransaction(deps.db, 'recordRedelivery');
  const row = {
    ...attempt,
    attempt: (await attemptCount(deps.db, attempt.account_id, attempt.event_id)) + 1,
    next_retry_at_ms: null,
  };
  await insertAttempt(deps.db, row);
  deps.meter.delivered(acknowledged ? 'delivered' : 'failed');
  const delivery = await deliveryForEvent(deps.db, attempt.account_id, attempt.event_id);
  if (delivery?.state === 'pending' && acknowledged) await closeDelivery(deps, delivery, 'delivered');
  return row;
}

/** sandbox/v1/webhook/deliveries: the attempt log of an account (or of one event), newest first. */
export async function deliveryAttempts(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  filter: { eventId?: string; limit: number },
): Promise<AttemptRow[]> {
  return await listAttempts(deps.db, accountId, filter);
}

/** DELETE /v1/webhook: the endpoint goes, and every pending retry of the account stops with it. */
export async function removeWebhook(deps: Deps, accountId: string): Promise<void> {
  assertInTransaction(deps.db, 'removeWebhook');
  await deleteWebhookConfig(deps.db, accountId);
  await cancelPendingDeliveries(deps, accountId);
}

/** Every pending retry of the account stops. */
async function cancelPendingDeliveries(deps: Deps, accountId: string): Promise<void> {
  await cancelPendingDeliveryRows(deps.db, accountId);
  await deleteJobsOfKind(deps.db, accountId, ATTEMPT_JOB);
}

/**
 * Start-up repair: before migration 68 the JobRunner deleted a background job's row before running it, so a process
 * killed during an attempt left a pending delivery with no timer (now the row stays, claimed, until the outcome). Each such delivery gets its job back, due at its next attempt.
 * Returns how many were restored.
 */
export async function restoreLostAttempts(deps: Deps): Promise<number> {
  assertInTransaction(deps.db, 'restoreLostAttempts');
  // Instances starting together on one database look one at a time, so a lost attempt gets one job, not one each.
  await lockFirstStart(deps.db);
  const lost = await deliveriesWithoutJob(deps.db, ATTEMPT_JOB);
  for (const d of lost) {
    await deps.jobs.schedule(deps.db, d.account_id, ATTEMPT_JOB, String(d.id), d.next_attempt_at_ms ?? d.created_at_ms);
  }
  return lost.length;
}
