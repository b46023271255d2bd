import type { Config } from '../config.js';
import type { Db } from '../store/db.js';
import type { EventBus } from './events.js';
import type { Ids } from './ids.js';
import type { JobRunner } from './jobs.js';
import type { Logger } from './logger.js';
import type { ServerSecret } from './secrets.js';

/** Everything the domain needs, passed in: nothing reads Date.now() or Math.random() behind its back. */
export interface Deps {
  db: Db;
  config: Config;
  secret: ServerSecret;
  ids: Ids;
  /** Wall-clock Unix milliseconds; account clocks are this plus an offset, or frozen. */
  wallClock: () => number;
  jobs: JobRunner;
  events: EventBus;
  logger: Logger;
  /** Set by the chain simulation: USDT seen on chain but not yet confirmed (the wallet's frozenAmount). */
  chain?: { pendingMicros(accountId: string): number };
  /** Called inside the sandbox reset transaction so each module wipes its own per-account state. */
  resets: ((db: Db, accountId: string) => void)[];
}
