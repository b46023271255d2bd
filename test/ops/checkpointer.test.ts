import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/domain/kernel/logger.js';
import { startCheckpointer, type Checkpointer } from '../../src/store/checkpointer.js';
import type Database from 'better-sqlite3';
import { openDb } from '../../src/store/db.js';

type Db = Database.Database;
import { waitFor } from '../helpers/wait.js';

let dir: string;
let db: Db;
let checkpointer: Checkpointer;

afterEach(async () => {
  await checkpointer?.stop();
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('WAL checkpoints off the request path', () => {
  it('a worker copies committed WAL frames into the database file while the request thread only commits', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ckpt-'));
    const path = join(dir, 'db.sqlite');
    db = openDb(path);
    checkpointer = startCheckpointer(db, path, silentLogger, 5);
    // The request thread keeps only a backstop at 10,000 pages: it no longer checkpoints every 1,000 (SQLite's default).
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000);
    db.exec('CREATE TABLE t (v TEXT)');
    const before = statSync(path).size;
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    for (let i = 0; i < 200; i++) insert.run('x'.repeat(1000));
    // Infrastructure on the wall clock (not an account timer): wait for the worker's checkpoint.
    await waitFor('the worker to checkpoint', () => statSync(path).size > before);
    expect(statSync(path).size).toBeGreaterThan(before);
  });
});
