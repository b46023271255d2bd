import type { WebhookDeps } from './deps.js';
import { runScheduledAttempt } from './attempt.js';
import { ATTEMPT_JOB, restoreLostAttempts } from '../domain/webhooks/deliveries.js';

/**
 * Wires webhook sending into the core: the attempt job (background: it waits on the network) and the start-up repair
 * of attempts lost to a crash. (Each event's delivery is recorded where the event is written: emitEvent.)
 */
export function registerWebhooks(deps: WebhookDeps): void {
  deps.jobs.register(ATTEMPT_JOB, { background: true, run: (job) => runScheduledAttempt(deps, job) });
  const restored = deps.transactions.run(() => restoreLostAttempts(deps));
  if (restored > 0) deps.logger.warn({ restored }, 'restored webhook attempts interrupted by a restart');
}
