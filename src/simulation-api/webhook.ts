import { OK } from '../http/envelope.js';
import type { ServerDeps } from '../http/server-deps.js';
import { caughtUpNow } from '../http/account-clock.js';
import type { Handlers } from '../http/router.js';

import { redeliver } from '../webhooks/attempt.js';
import { deliveryAttempts, type AttemptRow } from '../domain/webhooks/deliveries.js';

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
export function webhookSandboxHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/webhook/deliveries': async (c, body) => {
      const eventId = body.eventId;
      const limit = body.limit ?? 100;
      caughtUpNow(c, deps);
      const deliveries = deliveryAttempts(deps, c.get('account').id, { eventId, limit }).map(attemptView);
      return c.json({ ...OK, deliveries });
    },
    'POST /sandbox/v1/webhook/redeliver': async (c, body) => {
      const eventId = body.eventId;
      const accountId = c.get('account').id;
      const attempt = await redeliver(deps, accountId, eventId, caughtUpNow(c, deps));
      return c.json({ ...OK, delivery: attemptView(attempt) });
    },
  };
}
