import { expect } from 'vitest';
import { EVENT_TYPES, sampleEvent } from '../../src/cli/event-samples.js';
import { validateEvent } from '../../src/contracts/registry.js';
import type { EventEnvelope } from '../../src/domain/events/types.js';
import { fundedTest as it } from '../helpers/fixtures.js';

// `webhook send --type` signs a sample of each event type; a receiver tested on samples must meet in them what a real
// delivery holds. The oracle is the sandbox itself: one real event of each type, made through the API, and the
// shapes the spec and the design note give (a 22-digit cardId, txn_/evt_ ids of 24 base62 characters, positive
// magnitudes billed in USD, a merchant category label).

const SHAPES: Record<string, RegExp> = {
  id: /^evt_[0-9A-Za-z]{24}$/,
  cardId: /^\d{22}$/,
  transactionId: /^txn_[0-9A-Za-z]{24}$/,
  last4: /^\d{4}$/,
  settledAt: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/,
  merchantCountry: /^[A-Z]{2}$/,
};

/** Each field of a body with its JSON type, so two bodies compare by shape, not by value. */
function shape(value: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, v === null ? 'null' : typeof v]));
}

it('the sample of every event type validates against contracts/events, strictly', () => {
  expect(EVENT_TYPES).toHaveLength(7);
  for (const type of EVENT_TYPES) expect(validateEvent(sampleEvent(type), { strict: true }), type).toEqual([]);
});

it('each sample has the fields, JSON types and id shapes of a real delivery of its type', async ({ sb, acct }) => {
  const key = acct.apiKey;
  const post = async (path: string, body: Record<string, unknown>) => {
    const res = await sb.post(key, path, body);
    expect(res.status, `${path} ${res.text}`).toBe(200);
    return res.body as Record<string, unknown>;
  };
  const cardId = String((await post('/v1/card/create', { amount: 50, currency: 'USDT' })).cardId);
  await post('/sandbox/v1/card/3ds', { cardId, type: 'payment', merchant: 'SKYLINE AIRWAYS', amount: 120 });
  const auth = await post('/sandbox/v1/card/authorize', { cardId, amount: 12.5, merchantName: 'BLUE DOOR BISTRO' });
  await post('/sandbox/v1/transaction/clear', { transactionId: auth.transactionId });
  await post('/v1/card/freeze', { cardId });
  await post('/v1/card/unfreeze', { cardId });
  await post('/v1/card/cancel', { cardId });
  await sb.advance(key, 60);
  const real = ((await post('/sandbox/v1/events', { limit: 100 })).events as (EventEnvelope & { delivery: unknown })[])
    .map(({ delivery: _, ...envelope }) => envelope as EventEnvelope)
    .reverse();

  for (const type of EVENT_TYPES) {
    const delivered = real.find((e) => e.type === type);
    expect(delivered, `a real ${type}`).toBeDefined();
    const sample = sampleEvent(type);
    expect(Object.keys(sample), type).toEqual(Object.keys(delivered!));
    expect(shape(sample.data), type).toEqual(shape(delivered!.data));
    for (const [field, pattern] of Object.entries(SHAPES)) {
      const value = field === 'id' ? sample.id : sample.data[field];
      if (value !== undefined) expect(value, `${type} ${field}`).toMatch(pattern);
    }
    if (type.startsWith('transaction.')) {
      expect(sample.data).toMatchObject({ billCurrency: 'USD', transactionCurrency: 'USD', eventType: 'SPEND' });
      expect(sample.data.billAmount as number, type).toBeGreaterThan(0);
      expect(sample.data.transactionAmount as number, type).toBeGreaterThan(0);
      // A category label, as a real event's (`Restaurants`), not an MCC number (`5814`).
      expect(sample.data.mccCategory as string, type).toMatch(/^[A-Za-z][A-Za-z &-]+$/);
      expect(sample.data.billCurrency).toBe(delivered!.data.billCurrency);
    }
    if (type === 'card.created') expect(sample.data.binId).toBe(delivered!.data.binId);
  }
  // The samples' own fresh ids: two samples never share an event, card or transaction id.
  const a = sampleEvent('transaction.updated');
  const b = sampleEvent('transaction.updated');
  expect([a.id, a.data.transactionId]).not.toEqual([b.id, b.data.transactionId]);
});
