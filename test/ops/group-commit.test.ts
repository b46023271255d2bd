import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../src/store/db.js';
import { TransactionRunner } from '../../src/store/transaction-runner.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import type { Db as Seam } from '../../src/store/seam.js';

// Keyed writes that arrive together share one commit (store/transaction-runner.ts); what a partner sees of that on
// both stores is test/store/batches.test.ts. Here, SQLite's own way to fail a batch.

let db: Database.Database | undefined;

afterEach(() => {
  db?.close();
  db = undefined;
});

describe('group commit on SQLite', () => {
  it('fails every write of a batch whose transaction SQLite rolled back, and applies none of them', async () => {
    db = openDb(':memory:');
    db.exec('CREATE TABLE t (v INTEGER)');
    const store = new SqliteStore(db, ':memory:');
    const writes = new TransactionRunner(store, (tx) => tx);
    const insert = (v: number) => async (tx: Seam) => void (await tx.run('INSERT INTO t (v) VALUES (?)', [v]));
    const outcomes = await Promise.allSettled([
      writes.batched(insert(1)),
      // What SQLite does to the whole transaction on some errors (a full disk, an I/O error).
      writes.batched(async () => void db!.exec('ROLLBACK')),
      writes.batched(insert(3)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(0);
    // The next turn's batch commits as usual.
    await writes.batched(insert(4));
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual([4]);
  });
});
