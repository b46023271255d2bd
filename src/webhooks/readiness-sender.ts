import { getAccount } from '../domain/accounts/accounts.js';
import * as accountClock from '../domain/kernel/clock.js';
import { recordAttempt, type PlannedDelivery } from '../domain/readiness/runs.js';
import type { ReceiverCheckId } from '../domain/readiness/catalogue.js';
import type { WebhookDeps } from './deps.js';
import { sendWebhook } from './sender.js';
import { StoreUnavailable } from '../domain/kernel/errors.js';
import { keepRenewing } from '../domain/kernel/lease.js';
import { finishDelivery, renewDeliveryClaim } from '../domain/readiness/deliveries.js';
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

/** One attempt: sign it now (wall time, as real attempts are), POST it, record the outcome if `holder` still may. */
async function attempt(
  deps: WebhookDeps,
  sending: Sending,
  delivery: PlannedDelivery,
  envelope: Record<string, unknown>,
): Promise<boolean> {
  const atMs = deps.wallClock();
  const { body, signature } = signedFor(deps, delivery.check, sending.secret, envelope, Math.floor(atMs / 1000));
  const p = deps.config.webhookHeaderPrefix;
  const sent = await sendWebhook({
    url: sending.url,
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
  const outcome = { atMs, status: sent.statusCode, latencyMs: Math.round(sent.latencyMs), error: sent.error };
  return await recordAttempt(deps, delivery.id, outcome, sending.holder);
}

/** What a sender of a run's test deliveries is given: where they go, what signs them, who holds their claims. */
export interface Sending {
  accountId: string;
  url: string;
  secret: string;
  /** This instance: its claims' holder. */
  holder: string;
  /** How long a claim holds unless renewed (renewed every third of it while its attempts are on the wire). */
  leaseMs: number;
  /** Each with the attempts already made of it (none for a new run; some for one taken over). */
  deliveries: readonly (PlannedDelivery & { made?: number })[];
}

/** The attempts a check's delivery makes: the duplicate's two (the second once the first has answered), else one. */
const attemptsOf = (d: PlannedDelivery) => (d.check === 'receiver-accepts-duplicate' ? 2 : 1);

/**
 * Sends a run's test deliveries, all at once (each bounded by the webhook timeout), the duplicate's second attempt
 * after its first has answered; each, once its attempts are made, is done. Never rejects: a failure is logged, and
 * the check it leaves without an outcome reads not_observed. A delivery whose claim this instance lost (handed back
 * at a stop, or taken over after a stall) is abandoned: the instance holding it now sends it.
 */
export async function sendReadinessDeliveries(deps: WebhookDeps, sending: Sending): Promise<void> {
  try {
    const account = await getAccount(deps, sending.accountId);
    const created = Math.floor((await accountClock.now(deps, sending.accountId)) / 1000);
    await Promise.all(
      sending.deliveries.map(async (d) => {
        const envelope = {
          id: d.eventId,
          type: 'card.created',
          created,
          data: { cardId: deps.ids.cardId(created * 1000), binId: account.defaultBinId, status: 'ACTIVE' },
        };
        await sendOne(deps, sending, d, envelope);
      }),
    );
  } catch (err) {
    if (deps.store.open) deps.logger.error({ err }, 'readiness deliveries not sent');
    await giveUp(deps, err, sending.holder, sending.deliveries);
  }
}

/**
 * Ends deliveries that failed, their checks not observed, rather than sending them again and again; unless the
 * database was lost: then their claims stay, run out, and another look sends them again once it is back.
 */
async function giveUp(deps: WebhookDeps, err: unknown, holder: string, deliveries: readonly PlannedDelivery[]) {
  if (err instanceof StoreUnavailable || !deps.store.open) return;
  for (const d of deliveries) await finishDelivery(deps.db, d.id, holder).catch(() => undefined);
}

async function sendOne(
  deps: WebhookDeps,
  sending: Sending,
  d: Sending['deliveries'][number],
  envelope: Record<string, unknown>,
): Promise<void> {
  const { holder, leaseMs } = sending;
  const stopRenewing = keepRenewing(
    leaseMs,
    () => renewDeliveryClaim(deps.db, d.id, { holder, untilMs: Date.now() + leaseMs }),
    (err) => deps.logger.warn({ err }, 'renewing a readiness delivery claim failed'),
  );
  try {
    for (let i = d.made ?? 0; i < attemptsOf(d); i++) if (!(await attempt(deps, sending, d, envelope))) return;
    await finishDelivery(deps.db, d.id, holder);
  } catch (err) {
    // Alone: the run's other deliveries go on.
    if (deps.store.open) deps.logger.error({ err, check: d.check }, 'readiness delivery not sent');
    await giveUp(deps, err, holder, [d]);
  } finally {
    stopRenewing();
  }
}
