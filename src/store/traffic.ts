import type { Db } from './seam.js';

// SQL of traffic runs (migration 032). The runs' messages are jobs (store/jobs.ts), their refs starting with the
// run's id.

export interface TrafficRunRow {
  id: string;
  account_id: string;
  seed: number;
  days: number;
  per_card_per_day: number;
  /** JSON weights by story kind. */
  mix: string;
  /** JSON [{cardId, typicalMicros}]. */
  cards: string;
  /** JSON counts by message kind. */
  scheduled: string;
  stories: number;
  started_at_ms: number;
  stopped_at_ms: number | null;
}

export async function insertTrafficRun(db: Db, r: TrafficRunRow): Promise<void> {
  await db.run(
    `INSERT INTO traffic_runs (id, account_id, seed, days, per_card_per_day, mix, cards, scheduled, stories,
       started_at_ms, stopped_at_ms)
     VALUES (@id, @account_id, @seed, @days, @per_card_per_day, @mix, @cards, @scheduled, @stories, @started_at_ms,
       @stopped_at_ms)`,
    r,
  );
}

export async function findTrafficRun(db: Db, accountId: string, id: string): Promise<TrafficRunRow | undefined> {
  return (await db.get('SELECT * FROM traffic_runs WHERE id = ? AND account_id = ?', [id, accountId])) as
    TrafficRunRow | undefined;
}

/** The account's newest runs, newest first. */
export async function trafficRunsOf(db: Db, accountId: string, limit: number): Promise<TrafficRunRow[]> {
  return (await db.all('SELECT * FROM traffic_runs WHERE account_id = ? ORDER BY rowid DESC LIMIT ?', [
    accountId,
    limit,
  ])) as TrafficRunRow[];
}

export async function markTrafficStopped(db: Db, id: string, atMs: number): Promise<void> {
  await db.run('UPDATE traffic_runs SET stopped_at_ms = ? WHERE id = ? AND stopped_at_ms IS NULL', [atMs, id]);
}

/** Keeps the account's newest `keep` runs. */
export async function trimTrafficRuns(db: Db, accountId: string, keep: number): Promise<void> {
  await db.run(
    `DELETE FROM traffic_runs WHERE account_id = ? AND rowid NOT IN
       (SELECT rowid FROM traffic_runs WHERE account_id = ? ORDER BY rowid DESC LIMIT ?)`,
    [accountId, accountId, keep],
  );
}

/**
 * The runs of the tenant (the account `tenantId` and its child sandboxes) that still have messages to send: not
 * stopped, with a job of one of the kinds left (its ref starts with the run's id and a colon: a range of
 * jobs_account_kind_ref).
 */
export async function liveTrafficRuns(db: Db, tenantId: string, kindsJson: string): Promise<TrafficRunRow[]> {
  return (await db.all(
    `SELECT r.* FROM traffic_runs r JOIN accounts a ON a.id = r.account_id
       WHERE (a.id = @tenant OR a.parent_account_id = @tenant) AND r.stopped_at_ms IS NULL
         AND EXISTS (SELECT 1 FROM jobs j WHERE j.account_id = r.account_id
           AND j.kind IN (SELECT value FROM json_each(@kinds)) AND j.ref >= r.id || ':' AND j.ref < r.id || ';')`,
    { tenant: tenantId, kinds: kindsJson },
  )) as TrafficRunRow[];
}
