import type { Db } from './seam.js';
import { deliveryForEndpoint, type DeliveryState, type NewDelivery } from './webhook-deliveries.js';

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

const INSERT_EVENT = 'INSERT INTO events (id, account_id, type, created_s, data) VALUES (?, ?, ?, ?, ?) RETURNING seq';

/**
 * Writes an event and its webhook delivery as the account's endpoint stands (deliveryForEndpoint): answers the event's
 * seq (the outbox order), and the delivery when the account has an endpoint. One statement on PostgreSQL, two on
 * SQLite (which cannot write in a WITH).
 */
export async function insertEventWithDelivery(
  db: Db,
  event: { id: string; accountId: string; type: string; createdS: number; dataJson: string },
  deliveryAtMs: number,
): Promise<{ seq: number; delivery: NewDelivery | undefined }> {
  const values = [event.id, event.accountId, event.type, event.createdS, event.dataJson];
  const delivery = deliveryForEndpoint(event.accountId, event.id, deliveryAtMs);
  if (db.dialect !== 'postgres') {
    const seq = (await db.value<number>(INSERT_EVENT, values))!;
    return { seq, delivery: (await db.get(delivery.sql, delivery.params)) as NewDelivery | undefined };
  }
  const row = (await db.get(
    `WITH event AS (${INSERT_EVENT}), delivery AS (${delivery.sql})
     SELECT event.seq, delivery.id AS delivery_id, delivery.state AS delivery_state
       FROM event LEFT JOIN delivery ON true`,
    [...values, ...delivery.params],
  )) as { seq: number; delivery_id: number | null; delivery_state: DeliveryState | null };
  return {
    seq: row.seq,
    delivery: row.delivery_id === null ? undefined : { id: row.delivery_id, state: row.delivery_state! },
  };
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
