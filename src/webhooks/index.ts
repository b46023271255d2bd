import type { ServerDeps } from '../server-deps.js';
import { runScheduledAttempt } from './attempt.js';
import { findWebhookConfig } from '../domain/webhook-config.js';
import { ATTEMPT_JOB, recordDelivery, resetDeliveries, restoreLostAttempts } from '../domain/webhook-deliveries.js';

/**
 * Wires webhooks into the core: the attempt job (background: it waits on the network), the outbox listener, the
 * 3DS-code setting other modules read, the reset hook, and the start-up repair of attempts lost to a crash.
 */
export function registerWebhooks(deps: ServerDeps): void {
  deps.jobs.register(ATTEMPT_JOB, { background: true, run: runScheduledAttempt });
  deps.events.subscribe((db, event) => recordDelivery(deps, db, event));
  deps.webhooks = { deliver3dsCode: (accountId) => findWebhookConfig(deps, accountId)?.deliver3dsCode ?? false };
  deps.resets.push(resetDeliveries);
  const restored = deps.db.transaction(() => restoreLostAttempts(deps))();
  if (restored > 0) deps.logger.warn({ restored }, 'restored webhook attempts interrupted by a restart');
}
