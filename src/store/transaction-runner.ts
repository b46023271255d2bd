import type Database from 'better-sqlite3';

type Db = Database.Database;

// The one transaction runner: every transaction of the server opens here, and nowhere else (the layer test holds
// `.transaction(` to this file). Two forms:
// - `run(work)`: a transaction of its own now, or a savepoint of the one already open (a job inside an advance, a
//   command inside a batch). For what cannot wait a turn: start-up, a timer, a clock advance, a plain command.
// - `batched(work)`: group commit. The writes handed over within one turn of the event loop share one transaction
//   and one commit. `batched` queues a write without executing it; at the end of the turn (setImmediate) `flush`
//   opens one transaction, runs every queued write in a savepoint of its own (a write that throws rolls back alone and
//   its caller gets the error) and commits once. Only then are the callers' promises settled, so nobody can answer
//   before their write is committed, and since the flush runs from start to end without yielding, no other code ever
//   sees a write of the batch before its commit. A failed commit fails every write of the batch: none of it happened.
//
// Why a batch: in WAL mode every commit appends each page its transaction changed to the WAL. Concurrent keyed writes
// of one account change the same pages (its balance counters, the right edge of the indexes they insert into), which a
// batch writes once instead of once per request.

interface Queued {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

export class TransactionRunner {
  private queue: Queued[] = [];
  private scheduled = false;
  // better-sqlite3 makes a transaction function per call site; making one costs more than the BEGIN and COMMIT it
  // runs (2 % of a keyed write's CPU when every call made its own), so the runner keeps one for each form.
  private readonly inTransaction: (work: () => unknown) => unknown;
  private readonly inBatch: (batch: Queued[], outcomes: Outcome[]) => void;

  constructor(private readonly db: Db) {
    this.inTransaction = db.transaction((work: () => unknown) => work());
    this.inBatch = db.transaction((batch: Queued[], outcomes: Outcome[]) => {
      for (const q of batch) {
        try {
          outcomes.push({ ok: true, value: this.inTransaction(q.write) });
        } catch (err) {
          // Some errors (a full disk) make SQLite roll the whole transaction back: nothing before this one holds.
          if (!db.inTransaction) throw err;
          outcomes.push({ ok: false, err });
        }
      }
    });
  }

  /** Runs `work` in a transaction of its own now (a savepoint when one is open): for what cannot wait a turn. */
  run<T>(work: () => T): T {
    return this.inTransaction(work) as T;
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
      this.inBatch(batch, outcomes);
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
