import { findAccount } from '../domain/accounts/accounts.js';
import * as accountClock from '../domain/kernel/clock.js';
import type { WebhookDeps } from './deps.js';
import { getEvent, toEnvelope, type StoredEvent } from '../domain/events/outbox.js';
import type { Job } from '../domain/kernel/jobs.js';
import { DomainError } from '../domain/kernel/errors.js';
import { findWebhookConfig, signingSecret } from '../domain/webhooks/config.js';
import {
  closeDelivery,
  getDelivery,
  recordRedelivery,
  recordScheduledAttempt,
  holdsAttemptClaim,
  type AttemptRow,
} from '../domain/webhooks/deliveries.js';
import { sendWebhook, type SendResult } from './sender.js';
import { signatureHeader } from './signature.js';

// One attempt of one event: build the body at send time (delivery-only fields such as the 3DS code are never in
// the outbox), sign it afresh, POST it, and record the outcome.

/**
 * The exact bytes sent: the four-field envelope with the event data plus the enrichers' delivery-only fields.
 * @internal exported for the 3DS test that reads what would be sent under each webhook configuration
 */
export async function webhookBody(deps: WebhookDeps, event: StoredEvent): Promise<string> {
  const data: Record<string, unknown> = { ...event.data };
  for (const enrich of deps.eventEnrichers) Object.assign(data, (await enrich(deps, event)) ?? {});
  return JSON.stringify({ ...toEnvelope(event), data });
}

interface Sent extends SendResult {
  url: string;
  signedAtSeconds: number;
}

async function send(deps: WebhookDeps, event: StoredEvent, url: string, secret: string): Promise<Sent> {
  const body = await webhookBody(deps, event);
  // `t` is wall-clock time (docs/design.md section 11), so a partner's 300 s tolerance holds after clock advances.
  const signedAtSeconds = Math.floor(deps.wallClock() / 1000);
  const p = deps.config.webhookHeaderPrefix;
  const result = await sendWebhook({
    url,
    body,
    headers: {
      [`${p}-Signature`]: signatureHeader(secret, signedAtSeconds, body),
      [`${p}-Event-Id`]: event.id,
      [`${p}-Event-Type`]: event.type,
    },
    timeoutMs: deps.config.webhookTimeoutMs,
    refuseInternal: deps.config.mode === 'hosted',
    // Latency is a measured duration, not a reading of any clock the simulation controls.
    now: () => performance.now(),
  });
  return { ...result, url, signedAtSeconds };
}

function attemptOf(event: StoredEvent, sent: Sent, atMs: number, redelivery: boolean) {
  return {
    account_id: event.accountId,
    event_id: event.id,
    redelivery: Number(redelivery),
    url: sent.url,
    at_ms: atMs,
    signed_at_s: sent.signedAtSeconds,
    status_code: sent.statusCode,
    latency_ms: Math.round(sent.latencyMs),
    error: sent.error,
  } satisfies Omit<AttemptRow, 'id' | 'attempt' | 'next_retry_at_ms'>;
}

/**
 * The `webhook.attempt` job: the delivery's next scheduled attempt. It happens at its due instant when a clock
 * advance runs it, or later when the timer finds it overdue (a server that was down): the next delay counts from
 * when it really happened, so a backlog does not fire its retries back to back.
 */
export async function runScheduledAttempt(deps: WebhookDeps, job: Job): Promise<void> {
  const delivery = await getDelivery(deps.db, Number(job.ref));
  if (!delivery || delivery.state !== 'pending') return;
  const event = await getEvent(deps, delivery.account_id, delivery.event_id);
  const config = await findWebhookConfig(deps, delivery.account_id);
  if (!event || !config) return deps.transactions.run((deps) => closeDelivery(deps, delivery, 'cancelled'));
  // Paused endpoints build no backlog: the delivery ends here and resuming does not replay it. An account made to
  // deliver nothing (a replay's child sandbox) ends its deliveries the same way.
  if (!config.enabled || (await findAccount(deps, delivery.account_id))?.delivers === false) {
    return deps.transactions.run((deps) => closeDelivery(deps, delivery, 'disabled'));
  }
  const atMs = Math.max(job.dueAtMs, await accountClock.now(deps, delivery.account_id));
  const sent = await send(deps, event, config.url, (await signingSecret(deps, delivery.account_id))!);
  deps.logger.debug(
    { eventId: event.id, type: event.type, statusCode: sent.statusCode, error: sent.error, latencyMs: sent.latencyMs },
    'webhook attempt',
  );
  const attempt = attemptOf(event, sent, atMs, false);
  await deps.transactions.run(async (deps) => {
    // An attempt this instance abandoned (its claim handed back at a stop, or taken over after a stall) records
    // nothing: the instance holding the claim now makes the attempt again, and records it once.
    if (job.holder !== undefined && !(await holdsAttemptClaim(deps, job.id, job.holder))) {
      deps.logger.warn({ eventId: event.id }, 'webhook attempt abandoned: another instance holds its claim now');
      return;
    }
    await recordScheduledAttempt(deps, delivery.id, attempt, sent.error === null);
  });
}

/** /sandbox/v1/webhook/redeliver: one extra attempt now, outside the schedule (recordRedelivery says what follows). */
export async function redeliver(
  deps: WebhookDeps,
  accountId: string,
  eventId: string,
  atMs: number,
): Promise<Omit<AttemptRow, 'id'>> {
  const event = await getEvent(deps, accountId, eventId);
  if (!event) throw new DomainError('EVENT_NOT_FOUND');
  const config = await findWebhookConfig(deps, accountId);
  if (!config) throw new DomainError('WEBHOOK_NOT_CONFIGURED');
  if (!config.enabled) throw new DomainError('WEBHOOK_DISABLED');
  if ((await findAccount(deps, accountId))?.delivers === false) throw new DomainError('DELIVERIES_OFF');
  const sent = await send(deps, event, config.url, (await signingSecret(deps, event.accountId))!);
  const attempt = attemptOf(event, sent, atMs, true);
  return deps.transactions.run((deps) => recordRedelivery(deps, attempt, sent.error === null));
}
