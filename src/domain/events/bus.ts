import type { Db } from '../../store/db.js';
import type { EventEnvelope } from './types.js';

export interface StoredEvent extends EventEnvelope {
  seq: number;
  accountId: string;
}

/** Called inside the transaction that wrote the event (the webhooks module schedules deliveries here). */
export type EventListener = (db: Db, event: StoredEvent) => void;

export class EventBus {
  private readonly listeners: EventListener[] = [];

  subscribe(listener: EventListener): void {
    this.listeners.push(listener);
  }

  notify(db: Db, event: StoredEvent): void {
    for (const l of this.listeners) l(db, event);
  }
}
