import { deleteInstance, heartbeat } from '../../store/instances.js';
import type { Db, Dialect } from '../../store/db.js';
import type { Logger } from './logger.js';

// The instances serving one database, as this one counts them: each says it is alive every HEARTBEAT_MS, and one not
// heard from for LIVE_MS is not counted. A tenant's budgets (its rate, its requests in flight, its connections) are
// enforced per instance, each instance granting its share: the budget divided by the live instances, rounded up. A
// load balancer with no affinity spreads a tenant's requests over the instances, so the tenant gets about what one
// instance alone would grant (at most the budget plus one per further instance: 1.25x from a budget of 4 per
// instance past the first), and no request pays for a counter shared through the database. On SQLite the process is
// the deployment: one instance, the whole budget.

const HEARTBEAT_MS = 5_000;
const LIVE_MS = 15_000;

export class Deployment {
  /** The live instances this one counted at its last heartbeat (itself included). */
  instances = 1;
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param runTransaction runs its work in a transaction of the one runner (its db the transaction's)
   */
  constructor(
    private readonly dialect: Dialect,
    private readonly runTransaction: <T>(work: (db: Db) => Promise<T>) => Promise<T>,
    private readonly instance: string,
    private readonly wallClock: () => number,
    private readonly logger: Logger,
  ) {}

  /** This instance's share of a tenant budget: at least 1. */
  share(budget: number): number {
    return Math.max(1, Math.ceil(budget / this.instances));
  }

  /** Starts the heartbeat (PostgreSQL: instances may share the database); the first beat is taken before it answers. */
  async start(): Promise<void> {
    if (this.dialect === 'sqlite') return;
    await this.beat();
    const next = () => {
      this.timer = setTimeout(() => void this.beat().finally(next), HEARTBEAT_MS);
      this.timer.unref();
    };
    next();
  }

  private async beat(): Promise<void> {
    const now = this.wallClock();
    try {
      this.instances = await this.runTransaction((db) => heartbeat(db, this.instance, now, now - LIVE_MS));
    } catch (err) {
      // The database out of reach: the last count stands until it answers again.
      this.logger.warn({ err }, 'instance heartbeat not written');
    }
  }

  /** Stops the heartbeat; the instance is no longer counted by the others from their next beat. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dialect === 'sqlite') return;
    await this.runTransaction((db) => deleteInstance(db, this.instance)).catch(() => {});
  }
}
