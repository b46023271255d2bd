import { sql, type Db } from './db.js';

/** The next value of a dense per-scope counter (1, 2, 3...); call inside the writing transaction. */
export function nextSeq(db: Db, scope: string): number {
  return sql(
    db,
    `INSERT INTO seq_counters (scope, value) VALUES (?, 1)
     ON CONFLICT (scope) DO UPDATE SET value = value + 1 RETURNING value`,
  )
    .pluck()
    .get(scope) as number;
}

export function currentSeq(db: Db, scope: string): number {
  return (sql(db, 'SELECT value FROM seq_counters WHERE scope = ?').pluck().get(scope) as number | undefined) ?? 0;
}
