import type { Db } from './seam.js';

// SQL of readiness runs (migration 060).

export interface RunRow {
  id: string;
  account_id: string;
  started_at_ms: number;
  ends_at_ms: number;
  receiver_url: string | null;
  drop_request_id: string | null;
  error_request_id: string | null;
  throttle_request_id: string | null;
  api_checks: string | null;
  /** JSON of the partner's last ledger post and how it compared (migration 061); null without one. */
  ledger_check: string | null;
  /** 1: the run keeps its whole window even once every check is decided (migration 062). */
  full_window: number;
  /** How the window ended: null while it runs (and for runs written before migration 062). */
  ended_by: RunEnd | null;
  /**
   * Wall ms at which the client that got the run's 429 closed the connection it came on (migration 064); null while
   * it has not (and for runs written before).
   */
  throttle_gone_ms: number | null;
}

/** What ended a run's window: its end came, readiness/stop, or every check was decided. */
export type RunEnd = 'window' | 'stop' | 'decided';

export interface DeliveryRow {
  id: string;
  run_id: string;
  account_id: string;
  seq: number;
  check_id: string;
  event_id: string;
  /** JSON array of attempts. */
  attempts: string;
  /** 1 while attempts are owed (migration 071); null once they are all made. */
  pending?: number | null;
}

/** Who sends a delivery's attempts and until when (wall-clock ms of a real clock), unless renewed. */
export interface DeliveryClaim {
  holder: string;
  untilMs: number;
}

export async function insertRun(db: Db, r: RunRow): Promise<void> {
  await db.run(
    `INSERT INTO readiness_runs (id, account_id, started_at_ms, ends_at_ms, receiver_url, drop_request_id,
       error_request_id, throttle_request_id, api_checks, full_window) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      r.id,
      r.account_id,
      r.started_at_ms,
      r.ends_at_ms,
      r.receiver_url,
      r.drop_request_id,
      r.error_request_id,
      r.throttle_request_id,
      r.api_checks,
      r.full_window,
    ],
  );
}

/** A delivery owed its attempts, claimed by the instance starting the run, which sends them once it commits. */
export async function insertDelivery(
  db: Db,
  d: Omit<DeliveryRow, 'attempts' | 'pending'>,
  claim: DeliveryClaim,
): Promise<void> {
  await db.run(
    `INSERT INTO readiness_deliveries (id, run_id, account_id, seq, check_id, event_id, pending, claimed_by,
       claim_until_ms) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)`,
    [d.id, d.run_id, d.account_id, d.seq, d.check_id, d.event_id, claim.holder, claim.untilMs],
  );
}

export async function findRun(db: Db, accountId: string, runId: string): Promise<RunRow | undefined> {
  return (await db.get('SELECT * FROM readiness_runs WHERE id = ? AND account_id = ?', [runId, accountId])) as
    RunRow | undefined;
}

/** The account's newest runs, newest first. */
export async function runsOf(db: Db, accountId: string, limit: number): Promise<RunRow[]> {
  return (await db.all(
    'SELECT * FROM readiness_runs WHERE account_id = ? ORDER BY started_at_ms DESC, rowid DESC LIMIT ?',
    [accountId, limit],
  )) as RunRow[];
}

/** The account's run whose window has not been evaluated yet (at most one). */
export async function openRunOf(db: Db, accountId: string): Promise<RunRow | undefined> {
  return (await db.get('SELECT * FROM readiness_runs WHERE account_id = ? AND api_checks IS NULL', [accountId])) as
    RunRow | undefined;
}

/** Every account's window not yet evaluated, with its end. */
export async function openWindows(db: Db): Promise<{ account_id: string; ends_at_ms: number }[]> {
  return (await db.all('SELECT account_id, ends_at_ms FROM readiness_runs WHERE api_checks IS NULL')) as {
    account_id: string;
    ends_at_ms: number;
  }[];
}

/** Ends an open window at `atMs`, saying why; a window that ends sooner already keeps its end and its reason. */
export async function endWindow(db: Db, runId: string, atMs: number, by: RunEnd): Promise<void> {
  await db.run(
    `UPDATE readiness_runs SET ends_at_ms = @atMs, ended_by = @by
     WHERE id = @runId AND api_checks IS NULL AND ends_at_ms > @atMs`,
    { atMs, by, runId },
  );
}

/** Stores the evaluated API-use checks once (a window that ran to its end says so); false when already stored. */
export async function storeApiChecks(db: Db, runId: string, json: string): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE readiness_runs SET api_checks = ?, ended_by = COALESCE(ended_by, 'window')
       WHERE id = ? AND api_checks IS NULL`,
      [json, runId],
    )) === 1
  );
}

/** Stores the comparison of the partner's ledger post, replacing an earlier one. */
export async function storeLedgerCheck(db: Db, runId: string, json: string): Promise<void> {
  await db.run('UPDATE readiness_runs SET ledger_check = ? WHERE id = ?', [json, runId]);
}

/** Keeps the account's newest `keep` runs and their deliveries. */
export async function trimRuns(db: Db, accountId: string, keep: number): Promise<void> {
  const older = `SELECT id FROM readiness_runs WHERE account_id = @id
    ORDER BY started_at_ms DESC, rowid DESC LIMIT -1 OFFSET @keep`;
  await db.run(`DELETE FROM readiness_deliveries WHERE run_id IN (${older})`, { id: accountId, keep });
  await db.run(`DELETE FROM readiness_runs WHERE id IN (${older})`, { id: accountId, keep });
}

export async function deliveriesOf(db: Db, runId: string): Promise<DeliveryRow[]> {
  return (await db.all('SELECT * FROM readiness_deliveries WHERE run_id = ? ORDER BY seq', [runId])) as DeliveryRow[];
}

/**
 * Appends one attempt (a JSON object, as JSON.stringify writes it) to a delivery's array, as text: the same statement
 * on both stores (SQLite's json_insert has no PostgreSQL twin, and jsonb would reorder the object's keys).
 */
export async function appendAttempt(db: Db, deliveryId: string, attemptJson: string, holder: string): Promise<boolean> {
  // Only while `holder` still holds the delivery: an attempt it abandoned (handed back, or taken over) is not recorded.
  const changed = await db.run(
    `UPDATE readiness_deliveries SET attempts = CASE WHEN attempts = '[]' THEN '[' || @attempt || ']'
       ELSE substr(attempts, 1, length(attempts) - 1) || ',' || @attempt || ']' END
     WHERE id = @id AND pending = 1 AND claimed_by = @holder`,
    { attempt: attemptJson, id: deliveryId, holder },
  );
  return changed > 0;
}

/** The deliveries owed attempts whose claim has lapsed (a dead instance's) or was handed back, oldest claim first. */
export async function lapsedDeliveries(db: Db, nowMs: number, limit: number): Promise<DeliveryRow[]> {
  return (await db.all(
    'SELECT * FROM readiness_deliveries WHERE pending = 1 AND claim_until_ms <= ? ORDER BY claim_until_ms LIMIT ?',
    [nowMs, limit],
  )) as DeliveryRow[];
}

/** Takes over a lapsed delivery for `claim`; false when another instance took it first or it is done. */
export async function claimLapsedDelivery(db: Db, id: string, nowMs: number, claim: DeliveryClaim): Promise<boolean> {
  const changed = await db.run(
    `UPDATE readiness_deliveries SET claimed_by = ?, claim_until_ms = ?
      WHERE id = ? AND pending = 1 AND claim_until_ms <= ?`,
    [claim.holder, claim.untilMs, id, nowMs],
  );
  return changed > 0;
}

/** Extends the holder's claim while its attempts are on the wire. */
export async function renewDeliveryClaim(db: Db, id: string, claim: DeliveryClaim): Promise<void> {
  await db.run('UPDATE readiness_deliveries SET claim_until_ms = ? WHERE id = ? AND pending = 1 AND claimed_by = ?', [
    claim.untilMs,
    id,
    claim.holder,
  ]);
}

/** Every attempt owed was made (or none can be): the delivery is done, if `holder` still held it. */
export async function finishDelivery(db: Db, id: string, holder: string): Promise<void> {
  await db.run(
    'UPDATE readiness_deliveries SET pending = NULL, claimed_by = NULL, claim_until_ms = NULL WHERE id = ? AND claimed_by = ?',
    [id, holder],
  );
}

/** Whether any of the run's deliveries is still owed attempts (whichever instance sends them). */
export async function runOwesDeliveries(db: Db, runId: string): Promise<boolean> {
  return (
    (await db.get('SELECT 1 AS owed FROM readiness_deliveries WHERE run_id = ? AND pending = 1 LIMIT 1', [runId])) !==
    undefined
  );
}

/**
 * Claims handed back for another instance to take over at once: a stopping instance's own (`holder`), or, at start
 * on a SQLite file (one process), every claim, since all were a dead process's.
 */
export async function handBackDeliveries(db: Db, holder?: string): Promise<number> {
  return holder === undefined
    ? await db.run('UPDATE readiness_deliveries SET claimed_by = NULL, claim_until_ms = 0 WHERE pending = 1')
    : await db.run(
        'UPDATE readiness_deliveries SET claimed_by = NULL, claim_until_ms = 0 WHERE pending = 1 AND claimed_by = ?',
        [holder],
      );
}

export type ArmedFault = 'drop' | 'error' | 'throttle';

const TAKE: Record<ArmedFault, string> = {
  drop: 'drop_request_id = @requestId WHERE drop_request_id IS NULL',
  // The 500 is armed once the dropped response has fallen.
  error: 'error_request_id = @requestId WHERE drop_request_id IS NOT NULL AND error_request_id IS NULL',
  throttle: 'throttle_request_id = @requestId WHERE throttle_request_id IS NULL',
};

/**
 * Marks the account's armed fault of this kind as fallen on `requestId`, if its window is open at `nowMs`; the id of
 * the run, or undefined when none was armed. One statement: two requests never take the same fault.
 */
export async function takeArmed(
  db: Db,
  kind: ArmedFault,
  accountId: string,
  requestId: string,
  nowMs: number,
): Promise<string | undefined> {
  return (await db.value(
    `UPDATE readiness_runs SET ${TAKE[kind]} AND account_id = @accountId AND api_checks IS NULL AND ends_at_ms > @nowMs
       RETURNING id`,
    { requestId, accountId, nowMs },
  )) as string | undefined;
}

/** Notes, once, when the client that got the run's 429 closed the connection it came on. */
export async function markThrottleGone(db: Db, runId: string, atMs: number): Promise<void> {
  await db.run('UPDATE readiness_runs SET throttle_gone_ms = ? WHERE id = ? AND throttle_gone_ms IS NULL', [
    atMs,
    runId,
  ]);
}
