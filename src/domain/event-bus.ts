import type { Db } from '../store/db.js';

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
