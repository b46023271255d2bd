import { dueJobCount } from '../../store/jobs.js';
import { requestLogBytes } from '../../store/request-log.js';
import { pendingDeliveryCount } from '../../store/webhook-deliveries.js';
import type { Db } from '../../store/db.js';

export interface Backlog {
  /** Webhook deliveries still pending (waiting for their next attempt, or on the wire). */
  pendingDeliveries: number;
  /** Timers due on their account's clock and not yet run. */
  dueJobs: number;
  /** Bytes of request-log records stored, every tenant together. */
  requestLogBytes: number;
}

/** What waits or is kept server-wide now, read from the database (a scrape's gauges). */
export async function backlog(deps: { db: Db; wallClock: () => number }): Promise<Backlog> {
  return {
    pendingDeliveries: await pendingDeliveryCount(deps.db),
    dueJobs: await dueJobCount(deps.db, deps.wallClock()),
    requestLogBytes: await requestLogBytes(deps.db),
  };
}
