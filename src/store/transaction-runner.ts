import type { Db, TransactionOptions } from './seam.js';

// The one transaction runner: every transaction of the server opens here, and nowhere else (the layer test holds
// `.transaction(` to this file and the drivers). The work it runs is given a scope: the server's deps with `db` the
// transaction (and `transactions` a runner of savepoints in it), so what the work calls writes where the work
// does. Two forms:
// - `run(work)`: a transaction of its own now, or, from a scope already in one, a savepoint of it (a job inside an
//   advance, a command inside a batch). For what cannot wait a turn: start-up, a timer, a clock advance, a command.
// - `batched(work)`: group commit (SQLite). The writes handed over within one turn of the event loop share one
//   transaction and one commit. `batched` queues a write without running it; at the end of the turn (setImmediate)
//   `flush` opens one transaction, runs every queued write in a savepoint of its own (a write that throws rolls back
//   alone and its caller gets the error) and commits once. Only then are the callers' promises settled, so nobody
//   answers before their write is committed. A failed commit fails every write of the batch: none of it happened.
//   Why: in WAL mode every commit appends each page its transaction changed to the WAL, and concurrent keyed writes
//   of one account change the same pages (its balance counters, the right edge of the indexes they insert into),
//   which a batch writes once instead of once per request.
//   On PostgreSQL a batch would hold the locks of every account in it for the batch's length, and a transaction
//   must touch one tenant (docs/scaling.md): there each write is a transaction of its own, at once.

interface Queued {
  write: (tx: Db) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

export class TransactionRunner<Scope> {
  private queue: Queued[] = [];
  private scheduled = false;

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

  /** Runs `write` in this turn's batch; resolves with its result once the batch has committed. */
  batched<T>(write: (scope: Scope) => Promise<T>, options?: TransactionOptions): Promise<T> {
    if (this.db.dialect !== 'sqlite' || this.db.inTransaction) return this.run(write, options);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write: (tx) => write(this.scope(tx)), resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  /** Runs and commits every queued write now (the end of the turn does; so does a server closing its store). */
  async flush(): Promise<void> {
    this.scheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
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
      });
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
