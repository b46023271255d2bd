import { afterEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { behaviours, startReceiver, type Receiver } from '../webhooks/receiver.js';

let sb: TestSandbox;
let rx: Receiver;
afterEach(async () => {
  await rx?.close();
  await sb?.close();
});

describe('events and webhook/deliveries after a manual redelivery', () => {
  it('count the same attempts of an event, the redelivery included', async () => {
    sb = createTestSandbox();
    rx = await startReceiver();
    const acct = await sb.account({ balance: 100 });
    const put = await sb.request
      .put('/v1/webhook')
      .set('X-API-KEY', acct.apiKey)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ url: rx.url }));
    expect(put.status).toBe(200);
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
