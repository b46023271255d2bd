import { sql, type Db } from './db.js';

// SQL of the event outbox: each event is written in the transaction of the change it reports.

export interface EventRow {
  seq: number;
  id: string;
  account_id: string;
  type: string;
  created_s: number;
  /** The event's data as JSON. */
  data: string;
}

/** Writes an event; answers its seq (the outbox order). */
export function insertEvent(
  db: Db,
  id: string,
  accountId: string,
  type: string,
  createdS: number,
  dataJson: string,
): number {
  const { lastInsertRowid } = sql(
    db,
    'INSERT INTO events (id, account_id, type, created_s, data) VALUES (?, ?, ?, ?, ?)',
  ).run(id, accountId, type, createdS, dataJson);
  return Number(lastInsertRowid);
}

export function eventRow(db: Db, accountId: string, id: string): EventRow | undefined {
  return sql(db, 'SELECT * FROM events WHERE account_id = ? AND id = ?').get(accountId, id) as EventRow | undefined;
}

/** Events of an account (of one type, when given), newest first. */
export function eventRowsOf(db: Db, accountId: string, type: string | undefined, limit: number): EventRow[] {
  return (
    type
      ? sql(db, 'SELECT * FROM events WHERE account_id = ? AND type = ? ORDER BY seq DESC LIMIT ?').all(
          accountId,
          type,
          limit,
        )
      : sql(db, 'SELECT * FROM events WHERE account_id = ? ORDER BY seq DESC LIMIT ?').all(accountId, limit)
  ) as EventRow[];
}
