import type { Db } from './seam.js';

// SQL of the instances serving the database (migration 070).

/** The instance is alive now; answers how many instances were seen since `liveSinceMs` (itself included). */
export async function heartbeat(db: Db, id: string, nowMs: number, liveSinceMs: number): Promise<number> {
  await db.run(
    `INSERT INTO instances (id, started_at_ms, seen_at_ms) VALUES (?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET seen_at_ms = excluded.seen_at_ms`,
    [id, nowMs, nowMs],
  );
  // An instance gone quiet long ago (killed) is forgotten; it is not counted once its heartbeats stop anyway.
  await db.run('DELETE FROM instances WHERE seen_at_ms < ?', [liveSinceMs - 60 * 60 * 1000]);
  return (await db.value<number>('SELECT COUNT(*) FROM instances WHERE seen_at_ms >= ?', [liveSinceMs])) ?? 1;
}

/** The instance stops: it is no longer counted, at once. */
export async function deleteInstance(db: Db, id: string): Promise<void> {
  await db.run('DELETE FROM instances WHERE id = ?', [id]);
}
