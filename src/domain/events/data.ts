import { formatMicros, microsToJsonNumber } from '../kernel/money.js';

// The `data` of each event type, built in one place for the events the sandbox emits and for the samples that
// `card-sandbox webhook send --type` signs (src/cli/event-samples.ts): a receiver tested on a sample meets the same
// fields, types and shapes as in a real delivery. Plain values in, plain values out: nothing here reaches a store.

/** A transaction's status as events carry it (the spec's Events). */
export type TransactionEventStatus = 'PENDING' | 'CLEARED' | 'DECLINED' | 'CANCELLED' | 'REFUND';

/** What an event tells of a transaction: its whole state after the change (a transaction row has these fields). */
export interface TransactionState {
  id: string;
  card_id: string;
  status: TransactionEventStatus;
  kind: 'SPEND' | 'REFUND';
  bill_amount_micros: number;
  bill_currency: string;
  transaction_amount_micros: number;
  transaction_currency: string;
  merchant_name: string;
  merchant_country: string;
  mcc_category: string;
  created_at_ms: number;
  settled_at_ms: number | null;
}

/** ISO 8601 local time without a zone, as the spec's `settledAt` (the sandbox's local time is UTC). */
function localTimestamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19);
}

/**
 * The spec's "Transaction event data", every field. Amounts are positive magnitudes for every kind, as the
 * documented examples show. `settledAt` is the settlement instant, or for a PENDING transaction (not settled
 * yet) the instant it was first seen: the spec types the field as a string and never shows it absent.
 */
export function transactionEventData(
  t: TransactionState,
  previousStatus?: TransactionEventStatus,
): Record<string, unknown> {
  return {
    transactionId: t.id,
    cardId: t.card_id,
    status: t.status,
    ...(previousStatus ? { previousStatus } : {}),
    billAmount: microsToJsonNumber(t.bill_amount_micros),
    billCurrency: t.bill_currency,
    transactionAmount: microsToJsonNumber(t.transaction_amount_micros),
    transactionCurrency: t.transaction_currency,
    merchantName: t.merchant_name,
    merchantCountry: t.merchant_country,
    mccCategory: t.mcc_category,
    eventType: t.kind,
    settledAt: localTimestamp(t.settled_at_ms ?? t.created_at_ms),
  };
}

/** `card.created`: a card is ACTIVE from its issue. */
export function cardCreatedData(card: { cardId: string; binId: string }): Record<string, unknown> {
  return { cardId: card.cardId, binId: card.binId, status: 'ACTIVE' };
}

/** `card.frozen`, `card.unfrozen`, `card.cancelled`: the card alone. */
export function cardChangedData(cardId: string): Record<string, unknown> {
  return { cardId };
}

export interface ChallengeFacts {
  type: 'payment' | 'binding';
  merchant: string;
  amountMicros?: number | undefined;
  currency?: string | undefined;
  /** Left out when the challenge cannot be resolved to one card (no dedicated inbox, several cards). */
  cardId?: string | undefined;
  last4: string;
}

/** `card.3ds.requested`, without the delivery-only `otp`. */
export function challengeData(c: ChallengeFacts): Record<string, unknown> {
  return {
    type: c.type,
    merchant: c.merchant,
    ...(c.amountMicros !== undefined ? { amount: formatMicros(c.amountMicros) } : {}),
    ...(c.currency !== undefined ? { currency: c.currency } : {}),
    ...(c.cardId !== undefined ? { cardId: c.cardId } : {}),
    last4: c.last4,
  };
}
