import type { Db } from '../../store/db.js';
import type { TransactionRunner } from '../../store/transaction-runner.js';
import { claimJob, deleteJob, dueJobs, earliestJobOf, insertJob, nextDueJob, type JobRow } from '../../store/jobs.js';
import type { Logger } from './logger.js';

export interface Job {
  id: number;
  accountId: string;
  dueAtMs: number;
  kind: string;
  ref: string;
}

export interface JobKind {
  /** Runs at the job's due instant (`job.dueAtMs` is "now" for the handler); a closure over what it needs. */
  run(job: Job): void | Promise<void>;
  /**
   * Background jobs (webhook attempts) may wait on the network, so the request path never runs them;
   * the timer and clock advances do. Foreground jobs are synchronous and run inside one SQLite transaction.
   */
  background?: boolean;
}

const toJob = (r: JobRow): Job => ({
  id: r.id,
  accountId: r.account_id,
  dueAtMs: r.due_at_ms,
  kind: r.kind,
  ref: r.ref,
});

/** How long a clock advance runs jobs before it lets other requests in (a measured duration, not a timer). */
const RUN_DUE_SLICE_MS = 5;

/** Timers on the account clock, stored in SQLite so they survive a restart. */
export class JobRunner {
  private readonly kinds = new Map<string, JobKind>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly deps: { db: Db; transactions: TransactionRunner; logger: Logger; wallClock: () => number },
  ) {}

  register(kind: string, handler: JobKind): void {
    if (this.kinds.has(kind)) throw new Error(`job kind ${kind} registered twice`);
    this.kinds.set(kind, handler);
    this.foregroundJson = undefined;
  }

  /** Whether a job of this kind can run here (a loaded snapshot's jobs must be). */
  knows(kind: string): boolean {
    return this.kinds.has(kind);
  }

  /** Every registered kind (a test holds the snapshot's list of timers to it). */
  kindNames(): string[] {
    return [...this.kinds.keys()];
  }

  private foregroundJson: string | undefined;

  /**
   * Per account, a lower bound of its earliest foreground job's due instant (Infinity: none), learnt from the
   * last look and lowered by every `schedule`. Lets the request path skip the due-jobs query while nothing can
   * be due. A bound that is too low only costs a query: deleted or rolled-back jobs
   * leave it low, never high. Absent after a restart, so the first request of an account looks.
   */
  private readonly minForegroundDue = new Map<string, number>();

  private foregroundKinds(): string {
    this.foregroundJson ??= JSON.stringify([...this.kinds].filter(([, k]) => !k.background).map(([name]) => name));
    return this.foregroundJson;
  }

  /** Schedules a job; call inside the transaction of the change that needs it. */
  schedule(db: Db, accountId: string, kind: string, ref: string, dueAtMs: number): void {
    const handler = this.kinds.get(kind);
    if (!handler) throw new Error(`unknown job kind ${kind}`);
    if (!handler.background) {
      const known = this.minForegroundDue.get(accountId);
      if (known !== undefined && dueAtMs < known) this.minForegroundDue.set(accountId, dueAtMs);
    }
    insertJob(db, accountId, dueAtMs, kind, ref);
  }

  cancel(db: Db, accountId: string, kind: string, ref: string): void {
    deleteJob(db, accountId, kind, ref);
  }

  /** Runs, in due order, every job of the account due at or before `untilMs`, including jobs they schedule. */
  async runDue(accountId: string, untilMs: number, opts: { includeBackground: boolean }): Promise<void> {
    // While an advance sends the account's webhook attempts in order, the timer leaves them to it.
    const owns = opts.includeBackground && !this.inOrder.has(accountId);
    if (owns) this.inOrder.add(accountId);
    try {
      await this.runDueFrom(accountId, untilMs, opts.includeBackground);
    } finally {
      if (owns) this.inOrder.delete(accountId);
    }
  }

  private async runDueFrom(accountId: string, untilMs: number, includeBackground: boolean): Promise<void> {
    let sliceStartMs = performance.now();
    for (;;) {
      const job = this.next(accountId, untilMs, includeBackground);
      if (!job) return;
      await this.execute(job);
      // Every tenant shares this thread: a clock advance over a long backlog (1,500 expiring holds took 1.3 s) gives
      // the others a turn every few milliseconds. What the advance answers is the same: it still runs every job.
      if (performance.now() - sliceStartMs > RUN_DUE_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStartMs = performance.now();
      }
    }
  }

  /** The synchronous part of catching up, for the request path: never waits on the network. */
  runForegroundDue(accountId: string, untilMs: number): void {
    const bound = this.minForegroundDue.get(accountId);
    if (bound !== undefined && bound > untilMs) return;
    for (;;) {
      const row = earliestJobOf(this.deps.db, accountId, this.foregroundKinds());
      // The earliest foreground job, due or not: when it is not due yet, it is the next bound.
      if (!row || row.due_at_ms > untilMs) {
        this.minForegroundDue.set(accountId, row ? row.due_at_ms : Infinity);
        return;
      }
      void this.execute(toJob(row));
    }
  }

  private next(accountId: string, untilMs: number, includeBackground: boolean): Job | undefined {
    const row = nextDueJob(this.deps.db, accountId, untilMs, includeBackground ? undefined : this.foregroundKinds());
    return row ? toJob(row) : undefined;
  }

  /** Claims the job (deletes its row) and runs it; a foreground job's claim and effects commit together. */
  private execute(job: Job): Promise<void> | void {
    const kind = this.kinds.get(job.kind);
    const { db } = this.deps;
    if (!kind) {
      this.deps.logger.error({ job: job.kind }, 'dropping job of unknown kind');
      claimJob(db, job.id);
      return;
    }
    if (!kind.background) {
      this.deps.transactions.run(() => {
        if (claimJob(db, job.id)) kind.run(job);
      });
      return;
    }
    if (!claimJob(db, job.id)) return;
    const p = Promise.resolve(kind.run(job)).catch((err: unknown) => {
      this.deps.logger.error({ err, job: job.kind }, 'background job failed');
    });
    this.inFlight.add(p);
    return p.finally(() => this.inFlight.delete(p));
  }

  private async runInOrder(accountId: string, jobs: readonly Job[]): Promise<void> {
    this.inOrder.add(accountId);
    try {
      // A stopping runner starts nothing more.
      for (const job of jobs) if (this.timer) await this.execute(job);
    } finally {
      this.inOrder.delete(accountId);
    }
  }

  /** Starts the wall-clock timer that runs due jobs of running clocks even when no request arrives. */
  start(intervalMs = 200): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.poll(), intervalMs);
    this.timer.unref();
  }

  /** Asks the timer to look now (after an event was written, so a webhook goes out at once). */
  kick(): void {
    if (this.timer) setImmediate(() => this.poll());
  }

  async stop(graceMs = 5000): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const grace = new Promise((r) => setTimeout(r, graceMs).unref());
    await Promise.race([Promise.allSettled([...this.inFlight]), grace]);
  }

  /** Accounts whose background jobs are running, one after another (their webhook attempts, in event order). */
  private readonly inOrder = new Set<string>();

  private poll(): void {
    if (this.polling) return;
    this.polling = true;
    try {
      const rows = dueJobs(this.deps.db, this.deps.wallClock());
      // An account's background jobs (its webhook attempts) run one after another, in due order, so a receiver
      // that answers 2xx sees the account's events in the order they happened; accounts run side by side, and
      // the timer never waits on a slow receiver. An account whose chain still runs is picked up by a later poll.
      const chains = new Map<string, Job[]>();
      for (const job of rows.map(toJob)) {
        if (!this.kinds.get(job.kind)?.background) void this.execute(job);
        else if (!this.inOrder.has(job.accountId))
          chains.set(job.accountId, [...(chains.get(job.accountId) ?? []), job]);
      }
      for (const [accountId, jobs] of chains) void this.runInOrder(accountId, jobs);
    } catch (err) {
      this.deps.logger.error({ err }, 'job poll failed');
    } finally {
      this.polling = false;
    }
  }
}
