import type { Db } from './seam.js';

/** The next value of a dense per-scope counter (1, 2, 3...); call inside the writing transaction. */
export async function nextSeq(db: Db, scope: string): Promise<number> {
  return (await db.value(
    `INSERT INTO seq_counters (scope, value) VALUES (?, 1)
     ON CONFLICT (scope) DO UPDATE SET value = seq_counters.value + 1 RETURNING value`,
    [scope],
  )) as number;
}

export async function currentSeq(db: Db, scope: string): Promise<number> {
  return ((await db.value('SELECT value FROM seq_counters WHERE scope = ?', [scope])) as number | undefined) ?? 0;
}
