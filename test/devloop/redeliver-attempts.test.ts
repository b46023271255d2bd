import { describe, expect } from 'vitest';
import { webhookTest as it } from '../helpers/fixtures.js';
import { behaviours } from '../helpers/webhook-receiver.js';

describe('events and webhook/deliveries after a manual redelivery', () => {
  it('count the same attempts of an event, the redelivery included', async ({ sb, acct, rx, secret }) => {
    // The fixture has pointed the account's webhook at the receiver (PUT /v1/webhook answered this secret).
    expect(secret).toMatch(/^whsec_/);
    rx.queue.push(behaviours.status(500), behaviours.status(500));
    await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    await sb.advance(acct.apiKey, 0);
    const [event] = (await sb.post(acct.apiKey, '/sandbox/v1/events', {})).body.events;
    const agree = async (expected: number) => {
      const listed = (await sb.post(acct.apiKey, '/sandbox/v1/events', {})).body.events[0];
      const log = (await sb.post(acct.apiKey, '/sandbox/v1/webhook/deliveries', { eventId: event.id })).body;
      expect(listed.delivery.attempts).toBe(expected);
      expect(log.deliveries).toHaveLength(expected);
      return listed.delivery;
    };
    expect((await agree(1)).state).toBe('pending');
    // A failed redelivery leaves the schedule as it was, and is counted by both.
    expect((await sb.post(acct.apiKey, '/sandbox/v1/webhook/redeliver', { eventId: event.id })).status).toBe(200);
    expect((await agree(2)).state).toBe('pending');
    // A successful one ends the delivery.
    await sb.post(acct.apiKey, '/sandbox/v1/webhook/redeliver', { eventId: event.id });
    expect((await agree(3)).state).toBe('delivered');
    await sb.advance(acct.apiKey, 3600);
    await agree(3);
    expect(rx.received).toHaveLength(3);
  });
});
