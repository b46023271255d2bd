// What an event is: the spec's event types and envelope (values every layer may use: the console's filter, the CLI's
// samples), an event as the outbox stores it, and who is told of each as it is written.

/** Every event type the sandbox emits (the spec's Events), in the spec's order. */
export const EVENT_TYPES = [
  'card.created',
  'card.frozen',
  'card.unfrozen',
  'card.cancelled',
  'card.3ds.requested',
  'transaction.created',
  'transaction.updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The spec's envelope: exactly these four fields. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  created: number;
  data: Record<string, unknown>;
}

export interface StoredEvent extends EventEnvelope {
  seq: number;
  accountId: string;
}

/** Called inside the transaction that wrote the event, once its delivery is recorded. */
export type EventObserver = (event: StoredEvent) => void;

/**
 * Who is told of each event as it is written, beside its delivery (which emitEvent records itself): nobody in a
 * served sandbox; the tests hold every event to its contract here.
 */
export class EventObservers {
  private readonly observers: EventObserver[] = [];

  add(observer: EventObserver): void {
    this.observers.push(observer);
  }

  notify(event: StoredEvent): void {
    for (const o of this.observers) o(event);
  }
}
