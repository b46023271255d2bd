import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

type Db = Database.Database;

/**
 * WAL checkpoints on a worker thread with its own connection, off the request path. With SQLite's automatic
 * checkpoint (every 1,000 pages) the committing request copied the WAL into the database and ran its fsyncs, a
 * large share of a keyed write's cost (bench/code-figures.md). The worker runs PASSIVE checkpoints (they never block the writer or wait on readers).
 *
 * The main connection keeps an automatic checkpoint as a backstop at BACKSTOP_PAGES: a writer that never pauses
 * can keep the WAL from restarting (it only restarts when a commit finds every frame copied back), and then the
 * next commit past the backstop copies the few frames left and lets it restart. If the worker cannot start, the
 * main connection goes back to SQLite's default.
 */
const BACKSTOP_PAGES = 10_000;
const SQLITE_DEFAULT_PAGES = 1_000;

// CommonJS evaluated in the worker: better-sqlite3 resolved by the main thread, so this works from src and dist.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage(String(err && err.message));
  }
}, workerData.intervalMs);
`;

/** Where the checkpointer reports trouble (the server passes its logger). */
export interface CheckpointLog {
  warn(obj: object, msg?: string): void;
}

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(db: Db, path: string, logger: CheckpointLog, intervalMs = 50): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  db.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path, intervalMs } });
  worker.unref();
  let stopped = false;
  const fallBack = (err: unknown) => {
    if (stopped || !db.open) return;
    logger.warn({ err }, 'WAL checkpoint worker stopped: checkpoints back on the request path');
    db.pragma(`wal_autocheckpoint = ${SQLITE_DEFAULT_PAGES}`);
  };
  worker.on('error', fallBack);
  worker.on('exit', (code) => code !== 0 && fallBack(new Error(`exit code ${code}`)));
  worker.on('message', (message: string) => logger.warn({ message }, 'WAL checkpoint failed'));
  return {
    async stop() {
      stopped = true;
      await worker.terminate();
    },
  };
}

/** At shutdown, once the worker has stopped: copies the whole WAL into the database and truncates it. */
export function truncateWal(db: Db): void {
  db.pragma('wal_checkpoint(TRUNCATE)');
}
