import { findAccount } from '../domain/accounts/accounts.js';
import { tenantOf } from '../domain/accounts/tenants.js';
import type { ReceiverCheckId } from '../domain/readiness/catalogue.js';
import { trackSending } from '../domain/readiness/sending.js';
import { signingSecret } from '../domain/webhooks/config.js';
import {
  claimLapsedDelivery,
  findRun,
  finishDelivery,
  lapsedDeliveries,
  type DeliveryRow,
} from '../domain/readiness/deliveries.js';
import type { WebhookDeps } from './deps.js';
import { sendReadinessDeliveries } from './readiness-sender.js';

// Readiness test deliveries whose sender is gone: an instance that died with them on the wire (its claim's lease ran
// out) or stopped (it handed them back). Every instance looks once a second, one probe of an index of the deliveries
// still owed, and takes over what it finds, so a run's receiver checks are observed whichever instance survives.

const LOOK_EVERY_MS = 1000;
/** Deliveries taken over per look: a run has eight, so this is some runs' worth; the rest wait for the next look. */
const PER_LOOK = 32;

type TakeoverDeps = WebhookDeps & { instance: string };

/** Starts looking; answers the function that stops it. */
export function startReadinessTakeover(deps: TakeoverDeps): () => void {
  let looking = false;
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    void lookOnce(deps).finally(() => (looking = false));
  }, LOOK_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

async function lookOnce(deps: TakeoverDeps): Promise<void> {
  try {
    const nowMs = Date.now();
    for (const row of await lapsedDeliveries(deps.db, nowMs, PER_LOOK)) {
      const claim = { holder: deps.instance, untilMs: nowMs + deps.config.jobLeaseMs };
      if (await claimLapsedDelivery(deps.db, row.id, nowMs, claim)) await takeOver(deps, row);
    }
  } catch (err) {
    if (deps.store.open) deps.logger.error({ err }, 'looking for readiness deliveries to take over failed');
  }
}

/** Sends what the delivery still owes (the duplicate's second attempt alone, when its first was recorded). */
async function takeOver(deps: TakeoverDeps, row: DeliveryRow): Promise<void> {
  const run = await findRun(deps.db, row.account_id, row.run_id);
  const account = await findAccount(deps, row.account_id);
  const secret = await signingSecret(deps, row.account_id);
  // Nowhere to send it, or nothing to sign it with any more: its check reads not_observed.
  if (!run?.receiver_url || !account || !secret) return finishDelivery(deps.db, row.id, deps.instance);
  deps.logger.warn({ runId: run.id, check: row.check_id }, 'taking over a readiness delivery whose sender is gone');
  const delivery = {
    id: row.id,
    check: row.check_id as ReceiverCheckId,
    eventId: row.event_id,
    made: (JSON.parse(row.attempts) as unknown[]).length,
  };
  const sending = {
    accountId: row.account_id,
    url: run.receiver_url,
    secret,
    holder: deps.instance,
    leaseMs: deps.config.jobLeaseMs,
    deliveries: [delivery],
  };
  trackSending(deps, run.id, tenantOf(account), sendReadinessDeliveries(deps, sending));
}
