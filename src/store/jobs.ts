import type { Db, Statement } from './seam.js';

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
  /** The instance running it (a job that waits on the network, claimed rather than deleted), or null. */
  claimed_by: string | null;
  /** Until when that claim holds (wall-clock milliseconds): past it, the claim is a dead instance's. */
  claim_until_ms: number | null;
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

/**
 * The statement of `earliestJobsOf`, for a transaction to open with (store/seam.ts, `opening`): a timer slice's first
 * read (domain/kernel/jobs.ts), and with a limit of 1 `earliestJobOf`'s (a keyed write's).
 */
export function earliestJobsRead(accountId: string, kindsJson: string, limit: number): Statement {
  return {
    sql: `SELECT * FROM jobs WHERE account_id = ? AND kind IN (SELECT value FROM json_each(?))
       ORDER BY due_at_ms, id LIMIT ?`,
    params: [accountId, kindsJson, limit],
  };
}

/** The account's earliest `limit` jobs of the given kinds, due or not, earliest first. */
export async function earliestJobsOf(db: Db, accountId: string, kindsJson: string, limit: number): Promise<JobRow[]> {
  const { sql, params } = earliestJobsRead(accountId, kindsJson, limit);
  return (await db.all(sql, params)) as JobRow[];
}

/** The statement of `earliestJobOf`, for a transaction to open with (store/seam.ts, `opening`). */
export const earliestJobRead = (accountId: string, kindsJson: string): Statement =>
  earliestJobsRead(accountId, kindsJson, 1);

/** The account's earliest job of the given kinds, due or not: asked on every request. */
export async function earliestJobOf(db: Db, accountId: string, kindsJson: string): Promise<JobRow | undefined> {
  const { sql, params } = earliestJobRead(accountId, kindsJson);
  return (await db.get(sql, params)) as JobRow | undefined;
}

/** The account's earliest `limit` jobs of any kind due at or before `untilMs`, earliest first. */
export async function dueJobsOf(db: Db, accountId: string, untilMs: number, limit: number): Promise<JobRow[]> {
  return (await db.all('SELECT * FROM jobs WHERE account_id = ? AND due_at_ms <= ? ORDER BY due_at_ms, id LIMIT ?', [
    accountId,
    untilMs,
    limit,
  ])) as JobRow[];
}

/** The account's earliest job of the given kinds due at or before `untilMs`. */
export async function nextDueJob(
  db: Db,
  accountId: string,
  untilMs: number,
  kindsJson: string,
): Promise<JobRow | undefined> {
  return (await db.get(
    `SELECT * FROM jobs WHERE account_id = ? AND due_at_ms <= ?
       AND kind IN (SELECT value FROM json_each(?)) ORDER BY due_at_ms, id LIMIT 1`,
    [accountId, untilMs, kindsJson],
  )) as JobRow | undefined;
}

/**
 * Claims a job by deleting its row; false when another runner claimed it first. In a transaction the claim and the
 * job's effects commit together, and a runner that dies before the commit leaves the row to the next: PostgreSQL
 * makes a second DELETE of the row wait for the first transaction, then finds nothing.
 */
export async function claimJob(db: Db, id: number): Promise<boolean> {
  return (await db.run('DELETE FROM jobs WHERE id = ?', [id])) === 1;
}

/**
 * The account's claimed job, if any (jobs_account_claimed): at most one of an account's jobs is claimed at a time, by
 * the rule of its caller, who asks inside a transaction on the account.
 */
export async function claimedJobOf(db: Db, accountId: string): Promise<JobRow | undefined> {
  return (await db.get('SELECT * FROM jobs WHERE account_id = ? AND claimed_by IS NOT NULL ORDER BY id LIMIT 1', [
    accountId,
  ])) as JobRow | undefined;
}

/** Claims a job for `instance` until `untilMs`, keeping its row; false when it is gone. */
export async function leaseJob(db: Db, id: number, instance: string, untilMs: number): Promise<boolean> {
  return (
    (await db.run('UPDATE jobs SET claimed_by = ?, claim_until_ms = ? WHERE id = ?', [instance, untilMs, id])) === 1
  );
}

/** Extends `instance`'s claim on a job; false when the job is gone or no longer its claim. */
export async function renewJobLease(db: Db, id: number, instance: string, untilMs: number): Promise<boolean> {
  return (
    (await db.run('UPDATE jobs SET claim_until_ms = ? WHERE id = ? AND claimed_by = ?', [untilMs, id, instance])) === 1
  );
}

/** Deletes a job `instance` claimed, once it has run (its kind may have deleted or replaced the row already). */
export async function finishLeasedJob(db: Db, id: number, instance: string): Promise<void> {
  await db.run('DELETE FROM jobs WHERE id = ? AND claimed_by = ?', [id, instance]);
}

/**
 * Whether `instance` still holds its claim on a job, asked in the transaction that records the job's outcome: on
 * PostgreSQL the row is locked until it commits, so a hand-back or a takeover either waits for the record or is seen.
 */
export async function holdsJob(db: Db, id: number, instance: string): Promise<boolean> {
  const lock = db.dialect === 'postgres' ? ' FOR UPDATE' : '';
  return (
    (await db.get(`SELECT 1 AS held FROM jobs WHERE id = ? AND claimed_by = ?${lock}`, [id, instance])) !== undefined
  );
}

/**
 * A stopping instance hands back the claims it still holds (attempts left on the wire past the grace), so another
 * instance sends them at once rather than when their leases run out.
 */
export async function releaseClaimsOf(db: Db, instance: string): Promise<number> {
  return await db.run('UPDATE jobs SET claimed_by = NULL, claim_until_ms = NULL WHERE claimed_by = ?', [instance]);
}

/**
 * Every claim released, at start where nobody else can hold one (a SQLite file: wiring.ts): each was a dead process's,
 * and its job runs again at once rather than when its lease runs out.
 */
export async function releaseClaimsOfTheDead(db: Db): Promise<number> {
  return await db.run('UPDATE jobs SET claimed_by = NULL, claim_until_ms = NULL WHERE claimed_by IS NOT NULL');
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
export async function dueAccounts(db: Db, wallMs: number): Promise<DueAccount[]> {
  return (await db.all(
    `SELECT a.id AS account_id, COALESCE(a.parent_account_id, a.id) AS tenant_id,
        COALESCE(a.clock_frozen_at_ms, @wall + a.clock_offset_ms) AS now_ms
       FROM accounts a
      WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.account_id = a.id
        AND j.due_at_ms <= COALESCE(a.clock_frozen_at_ms, @wall + a.clock_offset_ms))`,
    { wall: wallMs },
  )) as DueAccount[];
}

/** The account's tenant and "now" (as dueAccounts answers them), or undefined when the account is gone. */
export async function accountClockNow(db: Db, accountId: string, wallMs: number): Promise<DueAccount | undefined> {
  return (await db.get(
    `SELECT id AS account_id, COALESCE(parent_account_id, id) AS tenant_id,
        COALESCE(clock_frozen_at_ms, @wall + clock_offset_ms) AS now_ms FROM accounts WHERE id = @id`,
    { id: accountId, wall: wallMs },
  )) as DueAccount | undefined;
}

/** Jobs due on their account's clock (frozen, or wall time plus its offset) and not yet run, every account. */
export async function dueJobCount(db: Db, wallMs: number): Promise<number> {
  return (await db.value(
    `SELECT COALESCE(SUM((SELECT COUNT(*) FROM jobs j WHERE j.account_id = a.id
        AND j.due_at_ms <= COALESCE(a.clock_frozen_at_ms, @wall + a.clock_offset_ms))), 0) FROM accounts a`,
    { wall: wallMs },
  )) as number;
}

/** The jobs of the given kinds whose ref starts with `prefix` (a run's messages): a range of jobs_account_kind_ref. */
const BY_REF_PREFIX = `account_id = @account AND kind IN (SELECT value FROM json_each(@kinds))
  AND ref >= @prefix AND ref < @upper`;

/** The bound of a prefix's range: the prefix and the last code point (what the driver binds, in either dialect). */
const upperOf = (prefix: string) => `${prefix}\u{10FFFF}`;

/** Deletes the account's jobs of the given kinds whose ref starts with `prefix`; answers how many. */
export async function deleteJobsByRefPrefix(
  db: Db,
  accountId: string,
  kindsJson: string,
  prefix: string,
): Promise<number> {
  return await db.run(`DELETE FROM jobs WHERE ${BY_REF_PREFIX}`, {
    account: accountId,
    kinds: kindsJson,
    prefix,
    upper: upperOf(prefix),
  });
}

/** How many of the account's jobs of the given kinds have a ref starting with `prefix`. */
export async function countJobsByRefPrefix(
  db: Db,
  accountId: string,
  kindsJson: string,
  prefix: string,
): Promise<number> {
  return (await db.value(`SELECT COUNT(*) FROM jobs WHERE ${BY_REF_PREFIX}`, {
    account: accountId,
    kinds: kindsJson,
    prefix,
    upper: upperOf(prefix),
  })) as number;
}
