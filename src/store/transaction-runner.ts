import { setImmediate as nextTurn } from 'node:timers/promises';
import { StoreUnavailable, type Db, type TransactionOptions } from './seam.js';

// The one transaction runner: every transaction of the server opens here, and nowhere else (the layer test holds
// `.transaction(` to this file and the drivers). The work it runs is given a scope: the server's deps with `db` the
// transaction (and `transactions` a runner of savepoints in it), so what the work calls writes where the work
// does. Two forms:
// - `run(work)`: a transaction of its own now, or, from a scope already in one, a savepoint of it (a job inside an
//   advance, a command inside a batch). For what cannot wait a turn: start-up, a timer, a clock advance, a command.
// - `batched(work)`: group commit. Writes handed over together share one transaction and one commit, each write in
//   a savepoint of its own (a write that throws rolls back alone and its caller gets the error; a write alone in its
//   batch is the transaction, with no savepoint). The callers' promises settle only after the commit, so nobody
//   answers before their write is committed; a failed commit fails every write of the batch: none of it happened.
//   - SQLite: the writes handed over within one turn of the event loop, every account's, committed at the end of the
//     turn (setImmediate). In WAL mode every commit appends each page its transaction changed to the WAL, and
//     concurrent keyed writes of one account change the same pages (its balance counters, the right edge of the
//     indexes they insert into), which a batch writes once instead of once per request.
//   - PostgreSQL: per account. A transaction must touch one tenant (docs/scaling.md), and an account's transactions
//     run one after another under its lock anyway; so an account has one batch in flight at a time, and the writes
//     that arrive meanwhile go together in the next, after it commits. A busy account then pays BEGIN, its lock and
//     the commit's flush of the log once per batch instead of once per write; a quiet one commits each write at once.
//     A batch runs first with no savepoints, each a round trip here; only when a write throws does it run again,
//     each write in a savepoint of its own.
//     A write without an account is a transaction of its own.

interface Queued {
  write: (tx: Db) => Promise<unknown>;
  /** The reads the write begins with (seam.ts): a batch opens with its first write's. */
  opening: TransactionOptions['opening'];
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

/** An account's writes on PostgreSQL: those waiting for the next batch, and the batch in flight (if any). */
interface Lane {
  queue: Queued[];
  draining: Promise<void>;
}

export class TransactionRunner<Scope> {
  private queue: Queued[] = [];
  private scheduled = false;
  private readonly lanes = new Map<string, Lane>();

  /**
   * @param db the store (transactions of their own) or one of its transactions (savepoints)
   * @param scope what the work is given for a transaction: the deps whose `db` it is
   */
  constructor(
    private readonly db: Db,
    private readonly scope: (tx: Db) => Scope,
  ) {}

  /** Runs `work` in a transaction of its own now (a savepoint when this runner's db is a transaction). */
  run<T>(work: (scope: Scope) => Promise<T>, options?: TransactionOptions): Promise<T> {
    return this.db.transaction((tx) => work(this.scope(tx)), options);
  }

  /** Runs `write` in a batch (see above); resolves with its result once the batch has committed. */
  batched<T>(write: (scope: Scope) => Promise<T>, options?: TransactionOptions): Promise<T> {
    if (this.db.inTransaction) return this.run(write, options);
    const account = options?.account;
    if (this.db.dialect !== 'sqlite' && account === undefined) return this.run(write, options);
    return new Promise<T>((resolve, reject) => {
      const queued = {
        write: (tx: Db) => write(this.scope(tx)),
        opening: options?.opening,
        resolve: resolve as (value: unknown) => void,
        reject,
      };
      if (account === undefined || this.db.dialect === 'sqlite') this.queueForTurn(queued);
      else this.queueForAccount(account, queued);
    });
  }

  /** SQLite: into this turn's batch, committed at the end of the turn. */
  private queueForTurn(queued: Queued): void {
    this.queue.push(queued);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  /** PostgreSQL: into the account's next batch, which starts at the end of the turn when none is in flight. */
  private queueForAccount(account: string, queued: Queued): void {
    const waiting = this.lanes.get(account);
    if (waiting) {
      waiting.queue.push(queued);
      return;
    }
    const lane: Lane = { queue: [queued], draining: nextTurn() };
    lane.draining = lane.draining.then(() => this.drain(account, lane));
    this.lanes.set(account, lane);
  }

  /** Runs and commits every queued write now (the end of the turn does; so does a server closing its store). */
  async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    await Promise.all([this.commit(batch), ...[...this.lanes.values()].map((lane) => lane.draining)]);
  }

  /** An account's batches on PostgreSQL, one after another until none is waiting. */
  private async drain(account: string, lane: Lane): Promise<void> {
    while (lane.queue.length > 0) {
      const batch = lane.queue;
      lane.queue = [];
      await this.commit(batch, { account, opening: batch[0]?.opening });
    }
    this.lanes.delete(account);
  }

  /**
   * PostgreSQL: the batch's writes one after another with no savepoints (two round trips fewer per write), for the
   * common case where none throws. Answers false when one did: then nothing of the batch committed, and it runs again
   * with a savepoint per write. A batch is one account's (its lane), so only that account's writes pay for the rerun.
   */
  private async commitWhole(batch: Queued[], options?: TransactionOptions): Promise<boolean> {
    const values: unknown[] = [];
    let threw = false;
    try {
      await this.db.transaction(async (tx) => {
        for (const q of batch) {
          try {
            values.push(await q.write(tx));
          } catch (err) {
            threw = true;
            throw err;
          }
        }
      }, options);
    } catch (err) {
      // A write's own failure runs the batch again; the store's (unreachable, the commit refused) fails every write.
      if (threw && !(err instanceof StoreUnavailable)) return false;
      for (const q of batch) q.reject(err);
      return true;
    }
    batch.forEach((q, i) => q.resolve(values[i]));
    return true;
  }

  /** One transaction for the batch; settles every caller's promise once it has committed (or failed). */
  private async commit(batch: Queued[], options?: TransactionOptions): Promise<void> {
    if (batch.length === 0) return;
    if (batch.length === 1) {
      // Alone in its batch: the write is the transaction, and a throw rolls it back, with no savepoint to open.
      const [q] = batch as [Queued];
      await this.db.transaction(q.write, options).then(q.resolve, q.reject);
      return;
    }
    if (this.db.dialect !== 'sqlite' && (await this.commitWhole(batch, options))) return;
    const outcomes: Outcome[] = [];
    try {
      await this.db.transaction(async (tx) => {
        for (const q of batch) {
          try {
            outcomes.push({ ok: true, value: await tx.transaction(q.write) });
          } catch (err) {
            outcomes.push({ ok: false, err });
          }
        }
      }, options);
    } catch (err) {
      // Nothing of the batch committed. A write that had failed on its own keeps its own error.
      batch.forEach((q, i) => {
        const o = outcomes[i];
        q.reject(o && !o.ok ? o.err : err);
      });
      return;
    }
    batch.forEach((q, i) => {
      const o = outcomes[i]!;
      if (o.ok) q.resolve(o.value);
      else q.reject(o.err);
    });
  }
}
