import { randomBytes } from 'node:crypto';
import type { EventEnvelope, EventType } from '../domain/event-types.js';

// A plausible event of each type for `webhook send --type`, shaped as contracts/events says (a test keeps each one
// valid). One per EventType, so a new event type does not compile until it has a sample here.

const transaction = {
  transactionId: 'txn_sample000000000000000000',
  cardId: 'card_sample0000000000000000',
  billAmount: -12.5,
  billCurrency: 'USDT',
  transactionAmount: -12.5,
  transactionCurrency: 'USD',
  merchantName: 'Sample Coffee Roasters',
  merchantCountry: 'US',
  mccCategory: '5814',
  eventType: 'SPEND',
  settledAt: '2026-01-15T10:30:00',
};

const SAMPLE_DATA: Record<EventType, Record<string, unknown>> = {
  'card.created': { cardId: 'card_sample0000000000000000', binId: 'BIN-SAMPLE', status: 'ACTIVE' },
  'card.frozen': { cardId: 'card_sample0000000000000000' },
  'card.unfrozen': { cardId: 'card_sample0000000000000000' },
  'card.cancelled': { cardId: 'card_sample0000000000000000' },
  'card.3ds.requested': {
    cardId: 'card_sample0000000000000000',
    type: 'payment',
    merchant: 'Sample Airline',
    amount: '120.00',
    currency: 'USD',
    last4: '4242',
  },
  'transaction.created': { ...transaction, status: 'PENDING' },
  'transaction.updated': { ...transaction, status: 'CLEARED', previousStatus: 'PENDING' },
};

/** The seven event types of the spec, in its order. */
export const EVENT_TYPES = Object.keys(SAMPLE_DATA) as EventType[];

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as string[]).includes(value);
}

/** A sample envelope of the type, with a fresh `evt_` id and `created` now. */
export function sampleEvent(type: EventType, nowSeconds = Math.floor(Date.now() / 1000)): EventEnvelope {
  const id = `evt_${randomBytes(18).toString('base64url').replace(/[-_]/g, '0').slice(0, 24)}`;
  return { id, type, created: nowSeconds, data: structuredClone(SAMPLE_DATA[type]) };
}
