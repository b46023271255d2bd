import type { Db } from './seam.js';

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
export async function insertEvent(
  db: Db,
  id: string,
  accountId: string,
  type: string,
  createdS: number,
  dataJson: string,
): Promise<number> {
  return (await db.value<number>(
    'INSERT INTO events (id, account_id, type, created_s, data) VALUES (?, ?, ?, ?, ?) RETURNING seq',
    [id, accountId, type, createdS, dataJson],
  ))!;
}

export async function eventRow(db: Db, accountId: string, id: string): Promise<EventRow | undefined> {
  return (await db.get('SELECT * FROM events WHERE account_id = ? AND id = ?', [accountId, id])) as
    EventRow | undefined;
}

/** Events of an account (of one type, when given), newest first. */
export async function eventRowsOf(
  db: Db,
  accountId: string,
  type: string | undefined,
  limit: number,
): Promise<EventRow[]> {
  return (
    type
      ? await db.all('SELECT * FROM events WHERE account_id = ? AND type = ? ORDER BY seq DESC LIMIT ?', [
          accountId,
          type,
          limit,
        ])
      : await db.all('SELECT * FROM events WHERE account_id = ? ORDER BY seq DESC LIMIT ?', [accountId, limit])
  ) as EventRow[];
}
