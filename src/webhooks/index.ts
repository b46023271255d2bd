import type { ServerDeps } from '../server-deps.js';
import { runScheduledAttempt } from './attempt.js';
import { ATTEMPT_JOB, recordDelivery, restoreLostAttempts } from '../domain/webhooks/deliveries.js';

/**
 * Wires webhook sending into the core: the attempt job (background: it waits on the network), the outbox listener
 * that records a delivery per event, and the start-up repair of attempts lost to a crash.
 */
export function registerWebhooks(deps: ServerDeps): void {
  deps.jobs.register(ATTEMPT_JOB, { background: true, run: (job) => runScheduledAttempt(deps, job) });
  deps.events.subscribe((db, event) => recordDelivery(deps, db, event));
  const restored = deps.transactions.run(() => restoreLostAttempts(deps));
  if (restored > 0) deps.logger.warn({ restored }, 'restored webhook attempts interrupted by a restart');
}
