import { Hono } from 'hono';
import { OK } from '../http/envelope.js';
import type { ServerDeps } from '../server-deps.js';
import { getEvent } from '../domain/events.js';
import { caughtUpNow } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { optionalInteger, optionalString, requiredString } from '../http/validate.js';
import { redeliver } from '../webhooks/attempt.js';
import { findWebhookConfig } from '../domain/webhook-config.js';
import { listAttempts, type AttemptRow } from '../domain/webhook-deliveries.js';
import { DomainError } from '../domain/errors.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** One attempt as the delivery log shows it: account time, outcome, and when the next try is due. */
function attemptView(a: Omit<AttemptRow, 'id'>) {
  return {
    eventId: a.event_id,
    attempt: a.attempt,
    redelivery: a.redelivery === 1,
    url: a.url,
    at: iso(a.at_ms),
    signatureTimestamp: a.signed_at_s,
    statusCode: a.status_code,
    latencyMs: a.latency_ms,
    error: a.error,
    nextRetryAt: iso(a.next_retry_at_ms),
  };
}

/** webhook/deliveries (the attempt log, newest first) and webhook/redeliver (one more attempt, now). */
export function webhookSandboxRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>()
    .post('/webhook/deliveries', async (c) => {
      const body = await readJsonObject(c);
      const eventId = optionalString(body, 'eventId');
      const limit = optionalInteger(body, 'limit') ?? 100;
      caughtUpNow(c, deps);
      const deliveries = listAttempts(deps.db, c.get('account').id, { eventId, limit }).map(attemptView);
      return c.json({ ...OK, deliveries });
    })
    .post('/webhook/redeliver', async (c) => {
      const body = await readJsonObject(c);
      const eventId = requiredString(body, 'eventId');
      const accountId = c.get('account').id;
      const nowMs = caughtUpNow(c, deps);
      const event = getEvent(deps.db, accountId, eventId);
      if (!event) throw new DomainError('EVENT_NOT_FOUND');
      const config = findWebhookConfig(deps, accountId);
      if (!config) throw new DomainError('WEBHOOK_NOT_CONFIGURED');
      if (!config.enabled) throw new DomainError('WEBHOOK_DISABLED');
      if (!c.get('account').delivers) throw new DomainError('DELIVERIES_OFF');
      const attempt = await redeliver(deps, event, nowMs);
      return c.json({ ...OK, delivery: attemptView(attempt) });
    });
}
