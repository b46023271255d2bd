import type { WebhookDeps } from './deps.js';
import { runScheduledAttempt } from './attempt.js';
import { ATTEMPT_JOB, restoreLostAttempts } from '../domain/webhooks/deliveries.js';

/**
 * Wires webhook sending into the core: the attempt job (background: it waits on the network). Each event's delivery
 * is recorded where the event is written (emitEvent).
 */
export function registerWebhooks(deps: WebhookDeps): void {
  deps.jobs.register(ATTEMPT_JOB, { background: true, run: (_, job) => runScheduledAttempt(deps, job) });
}

/** Start-up repair of the attempts a crash interrupted (webhooks' part of the first-start state). */
export async function restoreWebhookAttempts(deps: WebhookDeps): Promise<void> {
  const restored = await deps.transactions.run((deps) => restoreLostAttempts(deps));
  if (restored > 0) deps.logger.warn({ restored }, 'restored webhook attempts interrupted by a restart');
}
