import { transaction, type Db } from './db.js';

// Group commit: the writes handed over within one turn of the event loop share one transaction and one commit.
// `batched` queues a write without executing it; at the end of the turn (setImmediate) `flush` opens one transaction,
// runs every queued write in a savepoint of its own (a write that throws rolls back alone and its caller gets the
// error) and commits once. Only then are the callers' promises settled, so nobody can answer before their write is
// committed, and since the flush runs from start to end without yielding, no other code ever sees a write of the
// batch before its commit. A failed commit fails every write of the batch: none of it happened.
//
// Why: in WAL mode every commit appends each page its transaction changed to the WAL. Concurrent keyed writes of one
// account change the same pages (its balance counters, the right edge of the indexes they insert into), which a batch
// writes once instead of once per request.

interface Queued {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

export class GroupCommit {
  private queue: Queued[] = [];
  private scheduled = false;
  private readonly inTransaction: (batch: Queued[], outcomes: Outcome[]) => void;

  constructor(private readonly db: Db) {
    this.inTransaction = db.transaction((batch: Queued[], outcomes: Outcome[]) => {
      for (const q of batch) {
        try {
          outcomes.push({ ok: true, value: transaction(db, q.write) });
        } catch (err) {
          // Some errors (a full disk) make SQLite roll the whole transaction back: nothing before this one holds.
          if (!db.inTransaction) throw err;
          outcomes.push({ ok: false, err });
        }
      }
    });
  }

  /** Runs `write` in a transaction of its own now (a savepoint when one is open): for what cannot wait a turn. */
  transaction<T>(write: () => T): T {
    return transaction(this.db, write);
  }

  /** Runs `write` (synchronous) in this turn's batch; resolves with its result once the batch has committed. */
  batched<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Runs and commits every queued write now (the end of the turn does; so does a server closing its database). */
  flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    if (batch.length === 0) return;
    this.queue = [];
    const outcomes: Outcome[] = [];
    try {
      this.inTransaction(batch, outcomes);
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
