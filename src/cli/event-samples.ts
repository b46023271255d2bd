import { EVENT_TYPES, type EventEnvelope, type EventType } from '../domain/events/types.js';
import {
  cardChangedData,
  cardCreatedData,
  challengeData,
  transactionEventData,
  type TransactionState,
} from '../domain/events/data.js';
import { Ids } from '../domain/kernel/ids.js';
import { trafficMerchant, type MerchantGroup } from '../domain/traffic/merchants.js';
import type { Merchant } from '../domain/network/merchants.js';

// A sample event of each type for `webhook send --type` and the merchant `trigger` buys from: built by the same code
// as the events the sandbox emits (domain/events/data.ts), with ids of the real shapes (a 22-digit cardId, txn_ and
// evt_ ids from the id generator), a merchant of traffic's catalogue (a category label, not an MCC number), amounts
// positive and billed in USD, the card's currency. A test keeps each one valid against contracts/events and shaped as
// a delivery of the same type. One per EventType, so a new event type does not compile until it has a sample here.

/** The default BIN's id (domain/cards/bins.ts), which a sample card is issued on. */
const SAMPLE_BIN_ID = 'VISA-EFI-454924';
const DAY_MS = 24 * 3600 * 1000;
const ids = new Ids();

/** The merchant of a kind of purchase that samples and `trigger` use (the first of its group in traffic's catalogue). */
export function sampleMerchant(group: MerchantGroup = 'dining'): Merchant {
  return trafficMerchant(group, 'USD', (items) => items[0]!);
}

/** A sample card purchase of 12.50 USD, in the given status, as a transaction row holds it. */
function purchase(cardId: string, status: TransactionState['status'], nowMs: number): TransactionState {
  const merchant = sampleMerchant();
  return {
    id: ids.transactionId(),
    card_id: cardId,
    status,
    kind: 'SPEND',
    bill_amount_micros: 12_500_000,
    bill_currency: 'USD',
    transaction_amount_micros: 12_500_000,
    transaction_currency: 'USD',
    merchant_name: merchant.merchantName,
    merchant_country: merchant.merchantCountry,
    mcc_category: merchant.mccCategory,
    created_at_ms: nowMs - 60_000,
    settled_at_ms: status === 'PENDING' ? null : nowMs,
  };
}

function sampleData(type: EventType, nowMs: number): Record<string, unknown> {
  // A card issued a month before the event: its id starts with the day of its issue, as a real one does.
  const cardId = ids.cardId(nowMs - 30 * DAY_MS);
  switch (type) {
    case 'card.created':
      return cardCreatedData({ cardId: ids.cardId(nowMs), binId: SAMPLE_BIN_ID });
    case 'card.frozen':
    case 'card.unfrozen':
    case 'card.cancelled':
      return cardChangedData(cardId);
    case 'card.3ds.requested':
      return challengeData({
        type: 'payment',
        merchant: sampleMerchant('airline').merchantName,
        amountMicros: 120_000_000,
        currency: 'USD',
        cardId,
        last4: ids.digits(4),
      });
    case 'transaction.created':
      return transactionEventData(purchase(cardId, 'PENDING', nowMs));
    case 'transaction.updated':
      return transactionEventData(purchase(cardId, 'CLEARED', nowMs), 'PENDING');
  }
}

export { EVENT_TYPES };

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** A sample envelope of the type, with a fresh `evt_` id and `created` now. */
export function sampleEvent(type: EventType, nowSeconds = Math.floor(Date.now() / 1000)): EventEnvelope {
  return { id: ids.eventId(), type, created: nowSeconds, data: sampleData(type, nowSeconds * 1000) };
}
