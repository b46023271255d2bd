import { getAccount } from '../domain/accounts/accounts.js';
import * as accountClock from '../domain/kernel/clock.js';
import { recordAttempt, type PlannedDelivery } from '../domain/readiness/runs.js';
import type { ReceiverCheckId } from '../domain/readiness/catalogue.js';
import type { WebhookDeps } from './deps.js';
import { sendWebhook } from './sender.js';
import { signatureHeader } from './signature.js';

// The test deliveries of a readiness run (docs/readiness.md): realistic `card.created` events, never stored among the
// account's events, each POSTed like a real delivery (same headers, same bounded transport, same URL policy) but
// signed as its check needs: correctly, with another secret, 301 s in the past, or over a body changed afterwards.

/** Older than the 300 s tolerance of the reference verifiers. */
const STALE_SECONDS = 301;

interface Signed {
  body: string;
  signature: string;
}

/** The body sent and the signature header of one attempt of a check's delivery, at wall-clock second `t`. */
function signedFor(
  deps: WebhookDeps,
  check: ReceiverCheckId,
  secret: string,
  envelope: Record<string, unknown>,
  t: number,
): Signed {
  const body = JSON.stringify(envelope);
  switch (check) {
    case 'receiver-rejects-bad-signature':
      // Well formed, but signed with a secret the receiver does not have.
      return { body, signature: signatureHeader(`whsec_${deps.ids.base62(32)}`, t, body) };
    case 'receiver-rejects-stale-timestamp':
      return { body, signature: signatureHeader(secret, t - STALE_SECONDS, body) };
    case 'receiver-rejects-tampered-body': {
      // Signed, then one value changed on the way: the card id, as a forger redirecting the event would.
      const data = { ...(envelope.data as Record<string, unknown>), cardId: deps.ids.cardId(deps.wallClock()) };
      return { body: JSON.stringify({ ...envelope, data }), signature: signatureHeader(secret, t, body) };
    }
    default:
      return { body, signature: signatureHeader(secret, t, body) };
  }
}

/** One attempt: sign it now (wall time, as real attempts are), POST it, record the outcome. */
async function attempt(
  deps: WebhookDeps,
  url: string,
  secret: string,
  delivery: PlannedDelivery,
  envelope: Record<string, unknown>,
): Promise<void> {
  const atMs = deps.wallClock();
  const { body, signature } = signedFor(deps, delivery.check, secret, envelope, Math.floor(atMs / 1000));
  const p = deps.config.webhookHeaderPrefix;
  const sent = await sendWebhook({
    url,
    body,
    headers: {
      [`${p}-Signature`]: signature,
      [`${p}-Event-Id`]: delivery.eventId,
      [`${p}-Event-Type`]: 'card.created',
    },
    timeoutMs: deps.config.webhookTimeoutMs,
    refuseInternal: deps.config.mode === 'hosted',
    now: () => performance.now(),
  });
  recordAttempt(deps, delivery.id, {
    atMs,
    status: sent.statusCode,
    latencyMs: Math.round(sent.latencyMs),
    error: sent.error,
  });
}

/**
 * Sends a run's test deliveries, all at once (each bounded by the webhook timeout), the duplicate's second attempt
 * after its first has answered. Never rejects: a failure is logged, and the check it leaves without an outcome reads
 * not_observed.
 */
export async function sendReadinessDeliveries(
  deps: WebhookDeps,
  run: { accountId: string; url: string; secret: string; deliveries: readonly PlannedDelivery[] },
): Promise<void> {
  try {
    const account = getAccount(deps, run.accountId);
    const created = Math.floor(accountClock.now(deps, run.accountId) / 1000);
    await Promise.all(
      run.deliveries.map(async (d) => {
        const envelope = {
          id: d.eventId,
          type: 'card.created',
          created,
          data: { cardId: deps.ids.cardId(created * 1000), binId: account.defaultBinId, status: 'ACTIVE' },
        };
        await attempt(deps, run.url, run.secret, d, envelope);
        if (d.check === 'receiver-accepts-duplicate') await attempt(deps, run.url, run.secret, d, envelope);
      }),
    );
  } catch (err) {
    if (deps.db.open) deps.logger.error({ err }, 'readiness deliveries not all sent');
  }
}
