// The spec's event types and envelope: values every layer may use (the console's filter, the CLI's samples).

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
