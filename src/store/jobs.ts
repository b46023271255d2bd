import type { Db } from './seam.js';

// SQL of jobs: timers on the account clock, stored so they survive a restart. `kindsJson` is a JSON array of kind
// names (the foreground kinds), matched with json_each.

export interface JobRow {
  id: number;
  account_id: string;
  due_at_ms: number;
  kind: string;
  ref: string;
}

export async function insertJob(db: Db, accountId: string, dueAtMs: number, kind: string, ref: string): Promise<void> {
  await db.run('INSERT INTO jobs (account_id, due_at_ms, kind, ref) VALUES (?, ?, ?, ?)', [
    accountId,
    dueAtMs,
    kind,
    ref,
  ]);
}

export async function deleteJob(db: Db, accountId: string, kind: string, ref: string): Promise<void> {
  await db.run('DELETE FROM jobs WHERE account_id = ? AND kind = ? AND ref = ?', [accountId, kind, ref]);
}

/** Every job of one kind of the account. */
export async function deleteJobsOfKind(db: Db, accountId: string, kind: string): Promise<void> {
  await db.run('DELETE FROM jobs WHERE account_id = ? AND kind = ?', [accountId, kind]);
}

/** The account's earliest job of the given kinds, due or not: asked on every request. */
export async function earliestJobOf(db: Db, accountId: string, kindsJson: string): Promise<JobRow | undefined> {
  return (await db.get(
    `SELECT * FROM jobs WHERE account_id = ? AND kind IN (SELECT value FROM json_each(?))
       ORDER BY due_at_ms, id LIMIT 1`,
    [accountId, kindsJson],
  )) as JobRow | undefined;
}

/** The account's earliest job due at or before `untilMs`: of any kind, or of the given kinds. */
export async function nextDueJob(
  db: Db,
  accountId: string,
  untilMs: number,
  kindsJson?: string,
): Promise<JobRow | undefined> {
  return (
    kindsJson === undefined
      ? await db.get('SELECT * FROM jobs WHERE account_id = ? AND due_at_ms <= ? ORDER BY due_at_ms, id LIMIT 1', [
          accountId,
          untilMs,
        ])
      : await db.get(
          `SELECT * FROM jobs WHERE account_id = ? AND due_at_ms <= ?
             AND kind IN (SELECT value FROM json_each(?)) ORDER BY due_at_ms, id LIMIT 1`,
          [accountId, untilMs, kindsJson],
        )
  ) as JobRow | undefined;
}

/** Claims a job by deleting its row; false when another runner claimed it first. */
export async function claimJob(db: Db, id: number): Promise<boolean> {
  return (await db.run('DELETE FROM jobs WHERE id = ?', [id])) === 1;
}

/** Jobs due on their account's clock (frozen, or wall time plus its offset) and not yet run, every account. */
export async function dueJobCount(db: Db, wallMs: number): Promise<number> {
  return (await db.value(
    `SELECT COUNT(*) FROM jobs j JOIN accounts a ON a.id = j.account_id
     WHERE j.due_at_ms <= COALESCE(a.clock_frozen_at_ms, ? + a.clock_offset_ms)`,
    [wallMs],
  )) as number;
}

/** Up to 100 jobs due on their account's clock (frozen, or wall time plus its offset), in due order. */
export async function dueJobs(db: Db, wallMs: number): Promise<JobRow[]> {
  return (await db.all(
    `SELECT j.* FROM jobs j JOIN accounts a ON a.id = j.account_id
     WHERE j.due_at_ms <= COALESCE(a.clock_frozen_at_ms, ? + a.clock_offset_ms)
     ORDER BY j.due_at_ms, j.id LIMIT 100`,
    [wallMs],
  )) as JobRow[];
}

/** Deletes the account's jobs of the given kinds whose ref starts with `prefix`; answers how many. */
export async function deleteJobsByRefPrefix(
  db: Db,
  accountId: string,
  kindsJson: string,
  prefix: string,
): Promise<number> {
  return await db.run(
    `DELETE FROM jobs WHERE account_id = ? AND kind IN (SELECT value FROM json_each(?)) AND substr(ref, 1, ?) = ?`,
    [accountId, kindsJson, prefix.length, prefix],
  );
}

/** How many of the account's jobs of the given kinds have a ref starting with `prefix`. */
export async function countJobsByRefPrefix(
  db: Db,
  accountId: string,
  kindsJson: string,
  prefix: string,
): Promise<number> {
  return (await db.value(
    `SELECT COUNT(*) FROM jobs WHERE account_id = ? AND kind IN (SELECT value FROM json_each(?))
       AND substr(ref, 1, ?) = ?`,
    [accountId, kindsJson, prefix.length, prefix],
  )) as number;
}
