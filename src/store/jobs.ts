import { sql, type Db } from './db.js';

// SQL of jobs: timers on the account clock, stored so they survive a restart. `kindsJson` is a JSON array of kind
// names (the foreground kinds), matched with json_each.

export interface JobRow {
  id: number;
  account_id: string;
  due_at_ms: number;
  kind: string;
  ref: string;
}

export function insertJob(db: Db, accountId: string, dueAtMs: number, kind: string, ref: string): void {
  sql(db, 'INSERT INTO jobs (account_id, due_at_ms, kind, ref) VALUES (?, ?, ?, ?)').run(accountId, dueAtMs, kind, ref);
}

export function deleteJob(db: Db, accountId: string, kind: string, ref: string): void {
  sql(db, 'DELETE FROM jobs WHERE account_id = ? AND kind = ? AND ref = ?').run(accountId, kind, ref);
}

/** Every job of one kind of the account. */
export function deleteJobsOfKind(db: Db, accountId: string, kind: string): void {
  sql(db, 'DELETE FROM jobs WHERE account_id = ? AND kind = ?').run(accountId, kind);
}

/** The account's earliest job of the given kinds, due or not: asked on every request. */
export function earliestJobOf(db: Db, accountId: string, kindsJson: string): JobRow | undefined {
  return sql(
    db,
    `SELECT * FROM jobs WHERE account_id = ? AND kind IN (SELECT value FROM json_each(?))
       ORDER BY due_at_ms, id LIMIT 1`,
  ).get(accountId, kindsJson) as JobRow | undefined;
}

/** The account's earliest job due at or before `untilMs`: of any kind, or of the given kinds. */
export function nextDueJob(db: Db, accountId: string, untilMs: number, kindsJson?: string): JobRow | undefined {
  return (
    kindsJson === undefined
      ? sql(db, 'SELECT * FROM jobs WHERE account_id = ? AND due_at_ms <= ? ORDER BY due_at_ms, id LIMIT 1').get(
          accountId,
          untilMs,
        )
      : sql(
          db,
          `SELECT * FROM jobs WHERE account_id = ? AND due_at_ms <= ?
             AND kind IN (SELECT value FROM json_each(?)) ORDER BY due_at_ms, id LIMIT 1`,
        ).get(accountId, untilMs, kindsJson)
  ) as JobRow | undefined;
}

/** Claims a job by deleting its row; false when another runner claimed it first. */
export function claimJob(db: Db, id: number): boolean {
  return sql(db, 'DELETE FROM jobs WHERE id = ?').run(id).changes === 1;
}

/** Up to 100 jobs due on their account's clock (frozen, or wall time plus its offset), in due order. */
export function dueJobs(db: Db, wallMs: number): JobRow[] {
  return sql(
    db,
    `SELECT j.* FROM jobs j JOIN accounts a ON a.id = j.account_id
     WHERE j.due_at_ms <= COALESCE(a.clock_frozen_at_ms, ? + a.clock_offset_ms)
     ORDER BY j.due_at_ms, j.id LIMIT 100`,
  ).all(wallMs) as JobRow[];
}

/** Deletes the account's jobs of the given kinds whose ref starts with `prefix`; answers how many. */
export function deleteJobsByRefPrefix(db: Db, accountId: string, kindsJson: string, prefix: string): number {
  return sql(
    db,
    `DELETE FROM jobs WHERE account_id = ? AND kind IN (SELECT value FROM json_each(?)) AND substr(ref, 1, ?) = ?`,
  ).run(accountId, kindsJson, prefix.length, prefix).changes;
}

/** How many of the account's jobs of the given kinds have a ref starting with `prefix`. */
export function countJobsByRefPrefix(db: Db, accountId: string, kindsJson: string, prefix: string): number {
  return sql(
    db,
    `SELECT COUNT(*) FROM jobs WHERE account_id = ? AND kind IN (SELECT value FROM json_each(?))
       AND substr(ref, 1, ?) = ?`,
  )
    .pluck()
    .get(accountId, kindsJson, prefix.length, prefix) as number;
}
