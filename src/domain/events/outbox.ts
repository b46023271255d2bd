import { eventRow, eventRowsOf, insertEventWithDelivery, type EventRow } from '../../store/events.js';
import { attemptCount, deliveryForEvent, type DeliveryRow } from '../../store/webhook-deliveries.js';
import type { Deps } from '../kernel/deps.js';
import { scheduleFirstAttempt } from '../webhooks/deliveries.js';
import type { EventEnvelope, EventType, StoredEvent } from './types.js';

export type { StoredEvent } from './types.js';

/**
 * Writes an event to the outbox. Must run inside the transaction of the state change it reports, so an event
 * exists if and only if its change committed.
 */
export async function emitEvent(
  deps: Deps,
  accountId: string,
  nowMs: number,
  type: EventType,
  data: Record<string, unknown>,
): Promise<StoredEvent> {
  const { db } = deps;
  if (!db.inTransaction) throw new Error('emitEvent outside a transaction');
  const id = deps.ids.eventId();
  const created = Math.floor(nowMs / 1000);
  // Its webhook delivery (when the account has an endpoint) commits with it, and its first attempt is scheduled:
  // scheduling an attempt asks the timer to look at the account at once (jobs.schedule).
  const { seq, delivery } = await insertEventWithDelivery(
    db,
    { id, accountId, type, createdS: created, dataJson: JSON.stringify(data) },
    created * 1000,
  );
  const event: StoredEvent = { seq, accountId, id, type, created, data };
  await scheduleFirstAttempt(deps, event, delivery);
  deps.events.notify(event);
  return event;
}

function rowToEvent(r: EventRow): StoredEvent {
  return {
    seq: r.seq,
    id: r.id,
    accountId: r.account_id,
    type: r.type as EventType,
    created: r.created_s,
    data: JSON.parse(r.data),
  };
}

export async function getEvent(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  id: string,
): Promise<StoredEvent | undefined> {
  const { db } = deps;
  const row = await eventRow(db, accountId, id);
  return row && rowToEvent(row);
}

/**
 * Events of an account, newest first.
 * @internal exported for the tests, which read an account's whole outbox
 */
export async function listEvents(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  opts: { type?: string; limit: number },
): Promise<StoredEvent[]> {
  const { db } = deps;
  return (await eventRowsOf(db, accountId, opts.type, opts.limit)).map(rowToEvent);
}

/**
 * sandbox/v1/events: the outbox of an account, newest first, each event with its delivery (if any) and every attempt
 * the delivery log holds, manual redeliveries included, so `events` and `webhook/deliveries` agree (the delivery row
 * counts only the scheduled ones, which pace the retries).
 */
export async function eventsWithDeliveries(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  filter: { type?: string; limit: number },
): Promise<{ event: StoredEvent; delivery: DeliveryRow | undefined; attempts: number }[]> {
  const events = await listEvents(deps, accountId, filter);
  const rows = [];
  for (const event of events) {
    rows.push({
      event,
      delivery: await deliveryForEvent(deps.db, accountId, event.id),
      attempts: await attemptCount(deps.db, accountId, event.id),
    });
  }
  return rows;
}

export function toEnvelope(e: StoredEvent): EventEnvelope {
  return { id: e.id, type: e.type, created: e.created, data: e.data };
}
