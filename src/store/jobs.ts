import { sql, type Db } from './db.js';

// SQL of jobs: timers on the account clock, stored so they survive a restart. `kindsJson` is a JSON array of kind
// names (the foreground kinds), matched with json_each. Every query reads within one account, through an index
// (jobs_account_due: account, due instant; jobs_account_kind_ref: account, kind, reference), so what it costs is what
// it finds: jobs waiting on another account's clock, or further on this one's, are never read (migration 65).

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

/** An account with a job due on its clock: the account, its tenant (itself, or its parent) and its "now". */
export interface DueAccount {
  account_id: string;
  tenant_id: string;
  now_ms: number;
}

/**
 * The accounts with at least one job due on their own clock (frozen, or wall time plus its offset). One probe of
 * jobs_account_due per account, never a row of a job that is not due: 90,000 jobs parked on one account's frozen
 * clock once cost every poll of the server (every 200 ms, and after every event any tenant wrote) a read of each.
 */
export function dueAccounts(db: Db, wallMs: number): DueAccount[] {
  return sql(
    db,
    `SELECT a.id AS account_id, COALESCE(a.parent_account_id, a.id) AS tenant_id,
        COALESCE(a.clock_frozen_at_ms, @wall + a.clock_offset_ms) AS now_ms
       FROM accounts a
      WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.account_id = a.id
        AND j.due_at_ms <= COALESCE(a.clock_frozen_at_ms, @wall + a.clock_offset_ms))`,
  ).all({ wall: wallMs }) as DueAccount[];
}

/** The account's tenant and "now" (as dueAccounts answers them), or undefined when the account is gone. */
export function accountClockNow(db: Db, accountId: string, wallMs: number): DueAccount | undefined {
  return sql(
    db,
    `SELECT id AS account_id, COALESCE(parent_account_id, id) AS tenant_id,
        COALESCE(clock_frozen_at_ms, @wall + clock_offset_ms) AS now_ms FROM accounts WHERE id = @id`,
  ).get({ id: accountId, wall: wallMs }) as DueAccount | undefined;
}

/** Jobs due on their account's clock (frozen, or wall time plus its offset) and not yet run, every account. */
export function dueJobCount(db: Db, wallMs: number): number {
  return sql(
    db,
    `SELECT COALESCE(SUM((SELECT COUNT(*) FROM jobs j WHERE j.account_id = a.id
        AND j.due_at_ms <= COALESCE(a.clock_frozen_at_ms, @wall + a.clock_offset_ms))), 0) FROM accounts a`,
  )
    .pluck()
    .get({ wall: wallMs }) as number;
}

/** The jobs of the given kinds whose ref starts with `prefix` (a run's messages): a range of jobs_account_kind_ref. */
const BY_REF_PREFIX = `account_id = @account AND kind IN (SELECT value FROM json_each(@kinds))
  AND ref >= @prefix AND ref < @prefix || char(1114111)`;

/** Deletes the account's jobs of the given kinds whose ref starts with `prefix`; answers how many. */
export function deleteJobsByRefPrefix(db: Db, accountId: string, kindsJson: string, prefix: string): number {
  return sql(db, `DELETE FROM jobs WHERE ${BY_REF_PREFIX}`).run({ account: accountId, kinds: kindsJson, prefix })
    .changes;
}

/** How many of the account's jobs of the given kinds have a ref starting with `prefix`. */
export function countJobsByRefPrefix(db: Db, accountId: string, kindsJson: string, prefix: string): number {
  return sql(db, `SELECT COUNT(*) FROM jobs WHERE ${BY_REF_PREFIX}`)
    .pluck()
    .get({ account: accountId, kinds: kindsJson, prefix }) as number;
}
