import { setTimeout as sleep } from 'node:timers/promises';
import { soleWriter, StoreUnavailable, type Db, type Statement, type Store } from '../../store/db.js';
import type { TransactionRunner } from '../../store/transaction-runner.js';
import { keepRenewing } from './lease.js';
import {
  accountClockNow,
  claimedJobOf,
  claimJob,
  deleteJob,
  dueAccounts,
  dueJobsOf,
  earliestJobOf,
  earliestJobRead,
  earliestJobsOf,
  earliestJobsRead,
  finishLeasedJob,
  insertJob,
  leaseJob,
  nextDueJob,
  renewJobLease,
  type JobRow,
} from '../../store/jobs.js';
import { SliceBudget, type FairShare } from './fair-share.js';
import type { Logger } from './logger.js';

export interface Job {
  id: number;
  accountId: string;
  dueAtMs: number;
  kind: string;
  ref: string;
  /** A background job's: the instance whose claim it runs under (its outcome is recorded only while it holds it). */
  holder?: string;
}

/**
 * What the runner needs of the deps it hands its jobs: the domain's Deps (kernel/deps.ts), named here by what the
 * runner uses of them, so that deps.ts -> jobs.ts stays one way.
 */
export interface JobDeps<D> {
  db: Db;
  store: Store;
  transactions: TransactionRunner<D>;
}

export interface JobKind<D> {
  /**
   * Runs at the job's due instant (`job.dueAtMs` is "now" for the handler), given the deps of its transaction (a
   * foreground job) or the server's (a background one, which runs outside any).
   */
  run(deps: D, job: Job): void | Promise<void>;
  /**
   * Background jobs (webhook attempts) may wait on the network, so the request path never runs them;
   * the timer and clock advances do. Foreground jobs await nothing but the store, and run inside one transaction.
   */
  background?: boolean;
}

/** An account's "now" as a slice reads it, in the transaction (or outside any) that `scope` is of. */
type NowOf<D> = (scope: D) => Promise<number>;

const toJob = (r: JobRow): Job => ({
  id: r.id,
  accountId: r.account_id,
  dueAtMs: r.due_at_ms,
  kind: r.kind,
  ref: r.ref,
});

/**
 * What a request runs of its account's due timers at once, before the rest waits for its tenant's turns: the common
 * case (a top-up that settled, an authorisation that expired) costs the request no turn of the loop.
 */
const FIRST_SLICE_MS = 1;

/** How many of an account's jobs a timer slice reads at once (one round trip on PostgreSQL). */
const READ_AHEAD = 16;

/** A job of a slice run with no savepoints threw: the slice rolled back, to run again with a savepoint per job. */
class JobThrew extends Error {
  constructor(readonly err: unknown) {
    super('a job of the slice threw');
  }
}

/** How often an advance looks again at a webhook attempt another instance has on the wire, until it is recorded. */
const CLAIM_POLL_MS = 25;

/**
 * How a slice ended: `more` when jobs are left (or a background one, answered, comes next); over the foreground kinds,
 * the due instant of the account's earliest job once none is due (Infinity: none).
 */
interface SliceOutcome {
  background?: Job;
  waitFor?: Job;
  more: boolean;
  nextDueMs?: number;
}

/** What an account's next background job is to a runner: its own to run now, or another's on the wire to wait for. */
type BackgroundTurn = { run: Job } | { wait: Job };

/**
 * Timers on the account clock, stored so they survive a restart. Whatever runs them (a clock advance, a request
 * catching its account up, the wall-clock timer) runs them in slices in its tenant's turns (fair-share.ts), so one
 * tenant's backlog never holds the thread every tenant shares. A slice is one awaited transaction: on SQLite its
 * statements complete at once, so nothing else of the loop runs inside it.
 *
 * Once across instances (any number of servers on one database): every job runs in a transaction on its account (its
 * lock, store/postgres.ts), which claims it by deleting its row with its effects, so a second runner of the account
 * waits for the first to commit and then finds it gone; one that dies before committing leaves the row to the next.
 * A background job (a webhook attempt) waits on the network outside any transaction: it is claimed instead, its row
 * kept and marked with this instance and a lease it renews while it runs, and deleted once its outcome is recorded.
 * An account has one claimed job at a time, so its attempts go out one after another in due order, whichever
 * instance sends each; a claim whose lease ran out (its instance died) is taken over first.
 */
export class JobRunner<D extends JobDeps<D>> {
  private readonly kinds = new Map<string, JobKind<D>>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Accounts whose foreground timers are being caught up in slices (one catch-up per account at a time). */
  private readonly catchingUp = new Map<string, Promise<unknown>>();
  /** Accounts an event was written for this turn, whose webhook attempts the kick looks at. */
  private readonly kicked = new Set<string>();

  /** Background jobs this runner is running, by job id (what an advance of the same account waits for). */
  private readonly running = new Map<number, Promise<void>>();

  /**
   * `root`: the server's deps, once they are built (the runner is one of them). `instance`: this process's id, which
   * its claims carry; `leaseMs` how long a claim holds unless renewed, counted on `leaseClock` (real time: a lease is
   * about a process staying alive, not about any clock a test or the simulation moves).
   */
  constructor(
    private readonly deps: {
      logger: Logger;
      wallClock: () => number;
      fairShare: FairShare;
      root: () => D;
      instance: string;
      leaseMs: number;
      leaseClock: () => number;
    },
  ) {}

  register(kind: string, handler: JobKind<D>): void {
    if (this.kinds.has(kind)) throw new Error(`job kind ${kind} registered twice`);
    this.kinds.set(kind, handler);
    this.foregroundJson = undefined;
    this.backgroundJson = undefined;
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
  private backgroundJson: string | undefined;

  /**
   * Per account, a lower bound of its earliest foreground job's due instant (Infinity: none), learnt from the
   * last look and lowered by every `schedule`. Lets the request path skip the due-jobs query while nothing can
   * be due. A bound that is too low only costs a query: deleted or rolled-back jobs
   * leave it low, never high. Absent after a restart, so the first request of an account looks.
   */
  private readonly minForegroundDue = new Map<string, number>();

  /**
   * The accounts whose slice is running, each with whether a job was scheduled for it since the slice's last job began:
   * the new one may come due before the jobs the slice read ahead, so it reads again before its next job.
   */
  private readonly slicing = new Map<string, { scheduled: boolean }>();

  /** The foreground kinds as the store's job reads take them (a JSON array of names). */
  foregroundKinds(): string {
    this.foregroundJson ??= JSON.stringify([...this.kinds].filter(([, k]) => !k.background).map(([name]) => name));
    return this.foregroundJson;
  }

  private backgroundKinds(): string {
    this.backgroundJson ??= JSON.stringify([...this.kinds].filter(([, k]) => k.background).map(([name]) => name));
    return this.backgroundJson;
  }

  /**
   * Whether a foreground job of the account may be due at `nowMs` (false: certainly none). The bound is this
   * process's: where other instances schedule jobs too, it is never trusted.
   */
  private mayBeDue(accountId: string, nowMs: number): boolean {
    const bound = this.minForegroundDue.get(accountId);
    return bound === undefined || bound <= nowMs || !this.boundsHold();
  }

  /** Whether every job is scheduled through this process, so that its bounds see every one (store/seam.ts). */
  private boundsHold(): boolean {
    return soleWriter(this.deps.root().store);
  }

  /**
   * What a transaction on the account that starts with `runForegroundDue` reads first, for it to open with
   * (store/seam.ts, `opening`): nothing where the bound is trusted, which reads nothing.
   */
  openingReads(accountId: string): Statement[] {
    return this.boundsHold() ? [] : [earliestJobRead(accountId, this.foregroundKinds())];
  }

  /** Schedules a job; call inside the transaction of the change that needs it. */
  schedule(db: Db, accountId: string, kind: string, ref: string, dueAtMs: number): Promise<void> {
    const handler = this.kinds.get(kind);
    if (!handler) throw new Error(`unknown job kind ${kind}`);
    const slice = this.slicing.get(accountId);
    if (slice) slice.scheduled = true;
    if (!handler.background) {
      const known = this.minForegroundDue.get(accountId);
      if (known !== undefined && dueAtMs < known) this.minForegroundDue.set(accountId, dueAtMs);
    } else {
      // A webhook attempt goes out at once rather than at the next poll. Only then: a kick after every event cost
      // every write of an account without an endpoint two reads for nothing.
      this.kick(accountId);
    }
    return insertJob(db, accountId, dueAtMs, kind, ref);
  }

  cancel(db: Db, accountId: string, kind: string, ref: string): Promise<void> {
    return deleteJob(db, accountId, kind, ref);
  }

  /**
   * Runs, in due order, every job of the account due at or before `untilMs`, including jobs they schedule: a clock
   * advance. Slices of SLICE_MS (their commits included) in its tenant's turns; background jobs (webhook attempts)
   * are awaited in order.
   */
  async runDue(accountId: string, untilMs: number, opts: { includeBackground: boolean }): Promise<void> {
    // While an advance sends the account's webhook attempts in order, the timer leaves them to it.
    const owns = opts.includeBackground && !this.inOrder.has(accountId);
    if (owns) this.inOrder.add(accountId);
    try {
      const tenantId = await this.tenantOf(accountId);
      const budget = new SliceBudget();
      const untilOf: NowOf<D> = () => Promise.resolve(untilMs);
      for (;;) {
        const slice = await budget.run((workMs) => this.runSlice(accountId, untilOf, !opts.includeBackground, workMs));
        // A webhook attempt waits on the network, which leaves the thread to others.
        if (slice.background) await this.execute(slice.background);
        // Another's attempt of the account is on the wire: this advance answers once it is recorded.
        else if (slice.waitFor) await this.claimEnded(slice.waitFor);
        else if (!slice.more) return;
        // 1,500 expiring holds took 1.3 s in one go, and two concurrent half-day advances of a busy account held
        // every tenant for 53 s: now the advance waits its tenant's turn after each slice.
        else await this.deps.fairShare.turn(tenantId);
      }
    } finally {
      if (owns) this.inOrder.delete(accountId);
    }
  }

  /**
   * One slice: the account's due jobs (foreground, or any), in due order, until `sliceMs` have passed, none is due, or
   * a background job comes next (answered, for the caller to await). In one transaction, so the slice commits once: a
   * day of traffic is some 30,000 jobs, and a commit each cost more than the jobs. Each job's claim and effects go
   * together, and a job that fails rolls back alone: those before it commit, then its error goes on to the caller, as
   * it did when each job committed alone. That needs a savepoint per job, two round trips each on PostgreSQL, for a
   * failure that is a bug: so the slice runs first with none, and only when a job throws does it run again (the
   * first pass rolled back whole) with a savepoint per job.
   */
  private async runSlice(
    accountId: string,
    untilOf: NowOf<D>,
    foreground: boolean,
    sliceMs: number,
  ): Promise<SliceOutcome> {
    try {
      return await this.runSliceOnce(accountId, untilOf, { foreground, sliceMs, savepoints: false });
    } catch (err) {
      if (!(err instanceof JobThrew)) throw err;
    }
    return await this.runSliceOnce(accountId, untilOf, { foreground, sliceMs, savepoints: true });
  }

  /**
   * A slice's transaction. The due jobs are read READ_AHEAD at a time; a job that schedules another (which may come
   * due before those read) makes the next job read again. The time is looked at once the next job is known to be
   * due, so a slice that ran its last due job ends in its own transaction rather than opening one to find none. Over
   * the foreground kinds, the reads take the earliest jobs, due or not: the first not due is the account's next bound
   * (`nextDueMs`), learnt without a read of its own; the slice's first read goes with the transaction's opening
   * (store/seam.ts). Every read of the slice goes through the transaction's scope: a statement on the store itself
   * would wait for the transaction to end (store/sqlite.ts). The first job never needs a savepoint: the transaction
   * holds nothing else, so its failure rolls the transaction back instead.
   */
  private async runSliceOnce(
    accountId: string,
    untilOf: NowOf<D>,
    { foreground, sliceMs, savepoints }: { foreground: boolean; sliceMs: number; savepoints: boolean },
  ): Promise<SliceOutcome> {
    const endMs = performance.now() + sliceMs;
    let outcome: SliceOutcome = { more: false };
    let failed: { err: unknown } | undefined;
    const kinds = this.foregroundKinds();
    const read = (db: Db, untilMs: number) =>
      foreground ? earliestJobsOf(db, accountId, kinds, READ_AHEAD) : dueJobsOf(db, accountId, untilMs, READ_AHEAD);
    const slice = { scheduled: false };
    await this.deps
      .root()
      .transactions.run(
        async (scope) => {
          this.slicing.set(accountId, slice);
          let ahead: JobRow[] = [];
          for (let ran = 0; ; ran++) {
            const untilMs = await untilOf(scope);
            if (ahead.length === 0 || slice.scheduled) ahead = await read(scope.db, untilMs);
            const row = ahead[0];
            if (!row || row.due_at_ms > untilMs) {
              if (!foreground) return;
              // Learnt in the transaction, as runForegroundDue does: a job scheduled after it only lowers the bound.
              outcome = { more: false, nextDueMs: row ? row.due_at_ms : Infinity };
              this.minForegroundDue.set(accountId, outcome.nextDueMs!);
              return;
            }
            if (ran > 0 && performance.now() > endMs) {
              outcome = { more: true };
              return;
            }
            ahead.shift();
            const job = toJob(row);
            if (this.kinds.get(job.kind)?.background) {
              const turn = await this.claimNextBackground(scope.db, accountId, job);
              outcome = 'run' in turn ? { background: turn.run, more: true } : { waitFor: turn.wait, more: true };
              return;
            }
            slice.scheduled = false;
            if (ran === 0 || !savepoints) {
              try {
                await this.execute(job, scope, { savepoint: false });
              } catch (err) {
                // Rolls the transaction back: nothing of the slice commits, and a later job's failure runs it again.
                throw ran === 0 || err instanceof StoreUnavailable ? err : new JobThrew(err);
              }
              continue;
            }
            try {
              await this.execute(job, scope);
            } catch (err) {
              failed = { err };
              return;
            }
          }
        },
        // On the account: its jobs run one runner at a time, across instances (see the class).
        { account: accountId, opening: foreground ? [earliestJobsRead(accountId, kinds, READ_AHEAD)] : undefined },
      )
      .finally(() => {
        if (this.slicing.get(accountId) === slice) this.slicing.delete(accountId);
      });
    if (failed) throw failed.err;
    return outcome;
  }

  /**
   * The account's next background job, in a transaction on the account: a claim whose lease ran out (its instance
   * died) first, then `candidate` (its earliest due); none while another claim holds, which is waited for instead.
   * Claimed here for this instance, it is the caller's to run once the transaction commits.
   */
  private async claimNextBackground(db: Db, accountId: string, candidate: Job): Promise<BackgroundTurn>;
  private async claimNextBackground(db: Db, accountId: string, candidate?: Job): Promise<BackgroundTurn | undefined>;
  private async claimNextBackground(db: Db, accountId: string, candidate?: Job): Promise<BackgroundTurn | undefined> {
    const held = await claimedJobOf(db, accountId);
    const nowMs = this.deps.leaseClock();
    if (held && (held.claim_until_ms ?? 0) > nowMs) return { wait: toJob(held) };
    const job = held ? toJob(held) : candidate;
    if (!job) return undefined;
    if (held) this.deps.logger.warn({ job: job.kind, from: held.claimed_by }, 'taking over a job whose claim ran out');
    await leaseJob(db, job.id, this.deps.instance, nowMs + this.deps.leaseMs);
    return { run: { ...job, holder: this.deps.instance } };
  }

  /** Waits until a claimed job is no longer on the wire: this runner's own, or another instance's, looked at again. */
  private async claimEnded(job: Job): Promise<void> {
    const own = this.running.get(job.id);
    if (own) await own;
    else await sleep(CLAIM_POLL_MS);
  }

  /**
   * The request path's catch-up: runs the account's foreground jobs due at its "now" (`nowOf()`, read again as it
   * goes, since a running clock moves), FIRST_SLICE_MS of them at once and the rest in its tenant's turns, so a
   * backlog (a day of traffic on a clock nobody advanced) never runs in one go. One catch-up per account at a time: a
   * second request waits for the first's. Never waits on the network. `nextDueMs`: the due instant of the account's
   * earliest foreground job, as the request read it with its authentication (store/api-keys.ts), which spares the
   * read here. Answers that instant as it now stands: `nextDueMs` itself when nothing was due, the one the catch-up
   * read last when it ran jobs, undefined when it cannot tell (another request's catch-up ran them).
   */
  async caughtUp(accountId: string, nowOf: NowOf<D>, nextDueMs?: number): Promise<number | undefined> {
    const running = this.catchingUp.get(accountId);
    if (running) return running.then(() => undefined);
    const root = this.deps.root();
    const nowMs = await nowOf(root);
    // Another request may have started the account's catch-up while its "now" was read.
    const started = this.catchingUp.get(accountId);
    if (started) return started.then(() => undefined);
    if (nextDueMs !== undefined && nextDueMs > nowMs) return nextDueMs;
    if (!this.mayBeDue(accountId, nowMs)) return nextDueMs;
    // Where the bound is not trusted, one read tells, rather than a transaction on the account on every request.
    if (!this.boundsHold() && nextDueMs === undefined) {
      const earliest = await earliestJobOf(root.db, accountId, this.foregroundKinds());
      if (!earliest || earliest.due_at_ms > nowMs) return earliest ? earliest.due_at_ms : Infinity;
      const meanwhile = this.catchingUp.get(accountId);
      if (meanwhile) return meanwhile.then(() => undefined);
    }
    return this.catchUpInSlices(accountId, nowOf, FIRST_SLICE_MS);
  }

  private catchUpInSlices(accountId: string, nowOf: NowOf<D>, firstSliceMs: number): Promise<number | undefined> {
    const done = this.runForegroundSlices(accountId, nowOf, firstSliceMs).finally(() =>
      this.catchingUp.delete(accountId),
    );
    this.catchingUp.set(accountId, done);
    return done;
  }

  /** The slices of a catch-up; answers the next bound its last slice read. */
  private async runForegroundSlices(
    accountId: string,
    nowOf: NowOf<D>,
    firstSliceMs: number,
  ): Promise<number | undefined> {
    const budget = new SliceBudget();
    // Read only for a turn: a catch-up of one slice, the request path's common case, waits for none.
    let tenantId: string | undefined;
    for (let first = firstSliceMs > 0; ; first = false) {
      if (!first) {
        await this.deps.fairShare.turn((tenantId ??= await this.tenantOf(accountId)));
        // The timer's catch-up of a stopping runner starts nothing more.
        if (firstSliceMs <= 0 && !this.timer) return undefined;
      }
      const sliceMs = first ? firstSliceMs : budget.ms;
      const slice = await budget.run(() => this.runSlice(accountId, nowOf, true, sliceMs));
      if (!slice.more) return slice.nextDueMs;
    }
  }

  /**
   * The foreground part of catching up, for the request path: never waits on the network. Given `scope`, the deps of
   * a transaction, each job runs in a savepoint of it; given the server's deps, each in a transaction of its own.
   * Answers whether any job ran.
   */
  async runForegroundDue(scope: D, accountId: string, untilMs: number): Promise<boolean> {
    if (!this.mayBeDue(accountId, untilMs)) return false;
    for (let ran = false; ; ran = true) {
      const row = await earliestJobOf(scope.db, accountId, this.foregroundKinds());
      // The earliest foreground job, due or not: when it is not due yet, it is the next bound.
      if (!row || row.due_at_ms > untilMs) {
        this.minForegroundDue.set(accountId, row ? row.due_at_ms : Infinity);
        return ran;
      }
      await this.execute(toJob(row), scope);
    }
  }

  /** The account's tenant: itself, or its parent (a child sandbox's work is its parent's share). */
  private async tenantOf(accountId: string): Promise<string> {
    return (await accountClockNow(this.deps.root().store, accountId, 0))?.tenant_id ?? accountId;
  }

  /**
   * Runs a job. A foreground one is claimed (its row deleted) and run, claim and effects committed together, in a
   * transaction of its own or a savepoint of `scope`'s. A background one is already claimed for this instance
   * (claimNextBackground): it runs outside any transaction, its lease renewed meanwhile, and its row goes after.
   */
  private async execute(job: Job, scope?: D, { savepoint = true } = {}): Promise<void> {
    const kind = this.kinds.get(job.kind);
    const root = this.deps.root();
    if (!kind) {
      this.deps.logger.error({ job: job.kind }, 'dropping job of unknown kind');
      await claimJob((scope ?? root).db, job.id);
      return;
    }
    if (!kind.background) {
      const claimAndRun = async (deps: D) => {
        if (await claimJob(deps.db, job.id)) await kind.run(deps, job);
      };
      if (scope && !savepoint) await claimAndRun(scope);
      else await (scope ?? root).transactions.run(claimAndRun, { account: job.accountId });
      return;
    }
    const p = this.runClaimed(root, kind, job);
    this.inFlight.add(p);
    this.running.set(job.id, p);
    return p.finally(() => {
      this.inFlight.delete(p);
      this.running.delete(job.id);
    });
  }

  /**
   * A claimed background job: its lease renewed every third of its length while it runs, its row deleted after (its
   * kind may have replaced it already: a webhook attempt's retry is a new row). One that fails goes too, as a claim
   * by deletion did, unless the database was lost: then the claim stays, runs out, and the job runs again.
   */
  private async runClaimed(root: D, kind: JobKind<D>, job: Job): Promise<void> {
    const { instance, leaseMs, leaseClock, logger } = this.deps;
    const stopRenewing = keepRenewing(
      leaseMs,
      () => renewJobLease(root.db, job.id, instance, leaseClock() + leaseMs),
      (err) => logger.warn({ err, job: job.kind }, 'renewing a job lease failed'),
    );
    try {
      try {
        await kind.run(root, job);
      } finally {
        stopRenewing();
      }
      await finishLeasedJob(root.db, job.id, instance);
    } catch (err) {
      logger.error({ err, job: job.kind }, 'background job failed');
      // The database lost: the claim stays and runs out, and the job runs again once it is back.
      if (!(err instanceof StoreUnavailable)) await finishLeasedJob(root.db, job.id, instance).catch(() => undefined);
    }
  }

  /**
   * Sends the account's due background jobs (its webhook attempts) one after another, in due order, so a receiver
   * that answers 2xx sees the account's events in the order they happened; accounts run side by side, and the timer
   * never waits on a slow receiver.
   */
  private async sendInOrder(accountId: string): Promise<void> {
    this.inOrder.add(accountId);
    try {
      const root = this.deps.root();
      // A stopping runner starts nothing more.
      while (this.timer) {
        const turn = await root.transactions.run(
          async (scope) => {
            const clock = await accountClockNow(scope.db, accountId, this.deps.wallClock());
            const row = clock && (await nextDueJob(scope.db, accountId, clock.now_ms, this.backgroundKinds()));
            return await this.claimNextBackground(scope.db, accountId, row ? toJob(row) : undefined);
          },
          { account: accountId },
        );
        // Nothing due, or another's attempt on the wire: that runner sends the next one after it.
        if (!turn || !('run' in turn)) return;
        await this.execute(turn.run);
      }
    } catch (err) {
      this.deps.logger.error({ err }, 'webhook attempts failed');
    } finally {
      this.inOrder.delete(accountId);
    }
  }

  /** Starts the wall-clock timer that runs due jobs of running clocks even when no request arrives. */
  start(intervalMs = 200): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), intervalMs);
    this.timer.unref();
  }

  /**
   * Asks the timer to look at the account now (a webhook attempt was scheduled, so it goes out at once): once a turn,
   * whatever the attempts scheduled in it, and at that account alone.
   */
  private kick(accountId: string): void {
    if (!this.timer) return;
    // Scheduled outside the transaction that kicked (still open when the look comes): the look opens its own, which
    // waits on the account's lock until the kicking one has committed.
    if (this.kicked.size === 0) this.deps.root().store.detached(() => setImmediate(() => this.lookAtKicked()));
    this.kicked.add(accountId);
  }

  private lookAtKicked(): void {
    const accounts = [...this.kicked];
    this.kicked.clear();
    for (const accountId of accounts) if (!this.inOrder.has(accountId)) void this.sendInOrder(accountId);
  }

  async stop(graceMs = 5000): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const grace = new Promise((r) => setTimeout(r, graceMs).unref());
    await Promise.race([Promise.allSettled([...this.inFlight, ...this.catchingUp.values()]), grace]);
  }

  /** Accounts whose background jobs are running, one after another (their webhook attempts, in event order). */
  private readonly inOrder = new Set<string>();

  /**
   * Every 200 ms: the accounts with a job due on their clock (one index probe each: what waits costs nothing), each
   * caught up in its tenant's turns, and its webhook attempts sent in order.
   */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const due of await dueAccounts(this.deps.root().db, this.deps.wallClock())) {
        const accountId = due.account_id;
        if (!this.catchingUp.has(accountId) && this.mayBeDue(accountId, due.now_ms)) {
          const nowOf: NowOf<D> = async (scope) =>
            (await accountClockNow(scope.db, accountId, this.deps.wallClock()))?.now_ms ?? -Infinity;
          this.catchUpInSlices(accountId, nowOf, 0).catch((err: unknown) => {
            this.deps.logger.error({ err, accountId }, 'catching up timers failed');
          });
        }
        if (!this.inOrder.has(accountId)) void this.sendInOrder(accountId);
      }
    } catch (err) {
      this.deps.logger.error({ err }, 'job poll failed');
    } finally {
      this.polling = false;
    }
  }
}
