import type { EventEnvelope } from './types.js';

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
