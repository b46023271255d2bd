import type { Db } from './seam.js';

// SQL of the requests injected faults hold (migration 069): a row per request while it is held, by any instance.

export async function insertHeldRequest(
  db: Db,
  row: { id: string; accountId: string; instance: string; atMs: number },
): Promise<void> {
  await db.run('INSERT INTO held_requests (id, account_id, instance, held_at_ms) VALUES (?, ?, ?, ?)', [
    row.id,
    row.accountId,
    row.instance,
    row.atMs,
  ]);
}

export async function deleteHeldRequest(db: Db, id: string): Promise<void> {
  await db.run('DELETE FROM held_requests WHERE id = ?', [id]);
}

/** Every request the account holds, on any instance, let go of: answers how many there were. */
export async function deleteHeldRequestsOf(db: Db, accountId: string): Promise<number> {
  return await db.run('DELETE FROM held_requests WHERE account_id = ?', [accountId]);
}

export async function heldRequestCount(db: Db, accountId: string): Promise<number> {
  return (await db.value<number>('SELECT COUNT(*) FROM held_requests WHERE account_id = ?', [accountId])) ?? 0;
}

/** The ids of the requests the instance still holds by the table (a release elsewhere deleted the others). */
export async function heldRequestIdsOf(db: Db, instance: string): Promise<string[]> {
  return await db.column<string>('SELECT id FROM held_requests WHERE instance = ?', [instance]);
}
