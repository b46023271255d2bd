import type { Config } from './config.js';
import type { Deps } from './domain/kernel/deps.js';

/** What the HTTP layer and the webhook sender are given: the domain's dependencies plus the whole configuration. */
export interface ServerDeps extends Deps {
  config: Config;
}
