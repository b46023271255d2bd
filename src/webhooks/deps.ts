import type { Config } from '../config.js';
import type { Deps } from '../domain/kernel/deps.js';

/** What the webhook sender is given: the domain's deps (domain/kernel/deps.ts) and the server's configuration. */
export interface WebhookDeps extends Deps {
  config: Config;
}
