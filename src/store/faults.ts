import { sql, type Db } from './db.js';

// SQL of injected faults (sandbox/v1/faults), per account, in matching order (by id).

export interface FaultRow {
  id: number;
  path: string;
  remaining: number;
  latency_ms: number;
  respond_status: number | null;
  respond_code: number | null;
  respond_message: string | null;
  drop_response: number;
  hold: number;
}

export function insertFault(db: Db, accountId: string, f: Omit<FaultRow, 'id'>): void {
  sql(
    db,
    `INSERT INTO faults (account_id, path, remaining, latency_ms, respond_status, respond_code, respond_message, drop_response, hold)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    accountId,
    f.path,
    f.remaining,
    f.latency_ms,
    f.respond_status,
    f.respond_code,
    f.respond_message,
    f.drop_response,
    f.hold,
  );
}

export function clearFaults(db: Db, accountId: string): void {
  sql(db, 'DELETE FROM faults WHERE account_id = ?').run(accountId);
}

/** Rules still armed, in matching order. */
export function armedFaultRows(db: Db, accountId: string): FaultRow[] {
  return sql(db, 'SELECT * FROM faults WHERE account_id = ? AND remaining > 0 ORDER BY id').all(
    accountId,
  ) as FaultRow[];
}

/** Whether the faults table has any row, for any account: asked on every request. */
export function anyFaultRow(db: Db): boolean {
  return sql(db, 'SELECT 1 FROM faults LIMIT 1').get() !== undefined;
}

/** The first armed rule for this path, counted down by one (atomically: two requests never take the same use). */
export function takeFaultRow(db: Db, accountId: string, path: string): FaultRow | undefined {
  return sql(
    db,
    `UPDATE faults SET remaining = remaining - 1 WHERE id =
       (SELECT id FROM faults WHERE account_id = ? AND path = ? AND remaining > 0 ORDER BY id LIMIT 1)
     RETURNING *`,
  ).get(accountId, path) as FaultRow | undefined;
}

export function deleteFault(db: Db, id: number): void {
  sql(db, 'DELETE FROM faults WHERE id = ?').run(id);
}
