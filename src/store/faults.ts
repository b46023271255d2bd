import type { Db } from './seam.js';

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

export async function insertFault(db: Db, accountId: string, f: Omit<FaultRow, 'id'>): Promise<void> {
  await db.run(
    `INSERT INTO faults (account_id, path, remaining, latency_ms, respond_status, respond_code, respond_message, drop_response, hold)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      accountId,
      f.path,
      f.remaining,
      f.latency_ms,
      f.respond_status,
      f.respond_code,
      f.respond_message,
      f.drop_response,
      f.hold,
    ],
  );
}

export async function clearFaults(db: Db, accountId: string): Promise<void> {
  await db.run('DELETE FROM faults WHERE account_id = ?', [accountId]);
}

/** Rules still armed, in matching order. */
export async function armedFaultRows(db: Db, accountId: string): Promise<FaultRow[]> {
  return (await db.all('SELECT * FROM faults WHERE account_id = ? AND remaining > 0 ORDER BY id', [
    accountId,
  ])) as FaultRow[];
}

/** Whether the faults table has any row, for any account: asked on every request. */
export async function anyFaultRow(db: Db): Promise<boolean> {
  return (await db.get('SELECT 1 FROM faults LIMIT 1')) !== undefined;
}

/** The first armed rule for this path, counted down by one (atomically: two requests never take the same use). */
export async function takeFaultRow(db: Db, accountId: string, path: string): Promise<FaultRow | undefined> {
  return (await db.get(
    `UPDATE faults SET remaining = remaining - 1 WHERE id =
       (SELECT id FROM faults WHERE account_id = ? AND path = ? AND remaining > 0 ORDER BY id LIMIT 1)
     RETURNING *`,
    [accountId, path],
  )) as FaultRow | undefined;
}

export async function deleteFault(db: Db, id: number): Promise<void> {
  await db.run('DELETE FROM faults WHERE id = ?', [id]);
}
