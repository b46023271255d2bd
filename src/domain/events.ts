import { sql, type Db } from '../store/db.js';
import type { Deps } from './deps.js';
import type { StoredEvent } from './event-bus.js';
import type { EventEnvelope, EventType } from './event-types.js';

export type { StoredEvent } from './event-bus.js';

/**
 * Writes an event to the outbox. Must run inside the transaction of the state change it reports, so an event
 * exists if and only if its change committed.
 */
export function emitEvent(
  deps: Deps,
  accountId: string,
  nowMs: number,
  type: EventType,
  data: Record<string, unknown>,
): StoredEvent {
  const { db } = deps;
  if (!db.inTransaction) throw new Error('emitEvent outside a transaction');
  const id = deps.ids.eventId();
  const created = Math.floor(nowMs / 1000);
  const { lastInsertRowid } = sql(
    db,
    'INSERT INTO events (id, account_id, type, created_s, data) VALUES (?, ?, ?, ?, ?)',
  ).run(id, accountId, type, created, JSON.stringify(data));
  const event: StoredEvent = { seq: Number(lastInsertRowid), accountId, id, type, created, data };
  deps.events.notify(db, event);
  deps.jobs.kick();
  return event;
}

interface EventRow {
  seq: number;
  id: string;
  account_id: string;
  type: EventType;
  created_s: number;
  data: string;
}

function rowToEvent(r: EventRow): StoredEvent {
  return {
    seq: r.seq,
    id: r.id,
    accountId: r.account_id,
    type: r.type,
    created: r.created_s,
    data: JSON.parse(r.data),
  };
}

export function getEvent(db: Db, accountId: string, id: string): StoredEvent | undefined {
  const row = sql(db, 'SELECT * FROM events WHERE account_id = ? AND id = ?').get(accountId, id) as
    EventRow | undefined;
  return row && rowToEvent(row);
}

/** Events of an account, newest first. */
export function listEvents(db: Db, accountId: string, opts: { type?: string; limit: number }): StoredEvent[] {
  const rows = (
    opts.type
      ? sql(db, 'SELECT * FROM events WHERE account_id = ? AND type = ? ORDER BY seq DESC LIMIT ?').all(
          accountId,
          opts.type,
          opts.limit,
        )
      : sql(db, 'SELECT * FROM events WHERE account_id = ? ORDER BY seq DESC LIMIT ?').all(accountId, opts.limit)
  ) as EventRow[];
  return rows.map(rowToEvent);
}

export function toEnvelope(e: StoredEvent): EventEnvelope {
  return { id: e.id, type: e.type, created: e.created, data: e.data };
}
