import { describe, expect } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { webhookTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { behaviours, type Receiver } from '../helpers/webhook-receiver.js';
import { newCard, putWebhookConfig, sim } from '../helpers/core.js';

let sb: TestSandbox;
let acct: AccountHandle;
let rx: Receiver;
let secret: string;

const putWebhook = (body: Record<string, unknown>) => putWebhookConfig(sb, acct.apiKey, body);

it.override({ accountOptions: { balance: 1000 } });
it.beforeEach(({ sb: s, acct: a, rx: r, secret: k }) => void ([sb, acct, rx, secret] = [s, a, r, k]));

describe('POST /sandbox/v1/events', () => {
  it('lists the account events newest first with their delivery state', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    await sb.post(acct.apiKey, '/v1/card/freeze', { cardId });
    await sb.advance(acct.apiKey, 0);
    const res = await sim(sb, acct.apiKey, 'events');
    expect(res.status).toBe(200);
    expect(res.body.code).toBe(0);
    expect(res.body.events.map((e: { type: string }) => e.type)).toEqual(['card.frozen', 'card.created']);
    expect(res.body.events[0]).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'card.frozen',
      created: Math.floor(sb.wall.ms / 1000),
      data: { cardId },
      delivery: { state: 'delivered', attempts: 1, nextAttemptAt: null },
    });
  });

  it('filters by type and limits the count', async () => {
    await newCard(sb, acct.apiKey, 50);
    await newCard(sb, acct.apiKey, 50);
    const cardId = await newCard(sb, acct.apiKey, 50);
    await sb.post(acct.apiKey, '/v1/card/freeze', { cardId });
    expect((await sim(sb, acct.apiKey, 'events', { type: 'card.created', limit: 2 })).body.events).toHaveLength(2);
    expect((await sim(sb, acct.apiKey, 'events', { type: 'card.frozen' })).body.events).toHaveLength(1);
  });

  it.each([
    [{ type: 'card.exploded' }, /^type must be one of/],
    [{ limit: 0 }, /^limit must be an integer between 1 and 1000$/],
  ])('rejects %j with 400', async (body, message) => {
    const res = await sim(sb, acct.apiKey, 'events', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
  });

  it("never shows another account's events", async () => {
    await newCard(sb, acct.apiKey, 50);
    const other = await sb.account();
    expect((await sb.post(other.apiKey, '/sandbox/v1/events', {})).body.events).toEqual([]);
  });
});

describe('POST /sandbox/v1/webhook/deliveries', () => {
  it('lists every attempt with time, status, latency, error and next retry, filtered by eventId', async () => {
    rx.queue.push(behaviours.status(500));
    await newCard(sb, acct.apiKey, 50);
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    const [, first] = (await sim(sb, acct.apiKey, 'events')).body.events;
    const res = await sim(sb, acct.apiKey, 'webhook/deliveries', { eventId: first.id });
    expect(res.status).toBe(200);
    expect(res.body.deliveries).toEqual([
      {
        eventId: first.id,
        attempt: 1,
        redelivery: false,
        url: rx.url,
        at: new Date(sb.wall.ms).toISOString(),
        signatureTimestamp: Math.floor(sb.wall.ms / 1000),
        statusCode: 500,
        latencyMs: expect.any(Number),
        error: 'HTTP 500',
        nextRetryAt: new Date(sb.wall.ms + 60_000).toISOString(),
      },
    ]);
    expect((await sim(sb, acct.apiKey, 'webhook/deliveries')).body.deliveries).toHaveLength(2);
  });
});

describe('POST /sandbox/v1/webhook/redeliver', () => {
  it('delivers one event again now, signed afresh, with the same event id', async () => {
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    const [event] = (await sim(sb, acct.apiKey, 'events')).body.events;
    sb.wall.ms += 5000;
    const res = await sim(sb, acct.apiKey, 'webhook/redeliver', { eventId: event.id });
    expect(res.status).toBe(200);
    expect(res.body.delivery).toMatchObject({
      eventId: event.id,
      attempt: 2,
      redelivery: true,
      statusCode: 200,
      error: null,
    });
    expect(rx.received).toHaveLength(2);
    const again = rx.received[1];
    expect(again.body.id).toBe(event.id);
    expect(again.rawBody).toBe(rx.received[0].rawBody);
    const header = again.headers['service-signature'] as string;
    expect(header).not.toBe(rx.received[0].headers['service-signature']);
    expect(
      verifyWebhookSignature({ rawBody: again.rawBody, header, secret, now: Math.floor(sb.wall.ms / 1000) }).ok,
    ).toBe(true);
  });

  it('a successful redelivery ends the pending retries of a failing delivery', async () => {
    rx.queue.push(behaviours.status(500));
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    const [event] = (await sim(sb, acct.apiKey, 'events')).body.events;
    await sim(sb, acct.apiKey, 'webhook/redeliver', { eventId: event.id });
    await sb.advance(acct.apiKey, 86_400);
    expect(rx.received).toHaveLength(2);
    expect((await sim(sb, acct.apiKey, 'events')).body.events[0].delivery.state).toBe('delivered');
  });

  it('reports a failed redelivery without touching the retry schedule', async () => {
    rx.fallback = behaviours.status(500);
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    const [event] = (await sim(sb, acct.apiKey, 'events')).body.events;
    const res = await sim(sb, acct.apiKey, 'webhook/redeliver', { eventId: event.id });
    expect(res.body.delivery).toMatchObject({ statusCode: 500, error: 'HTTP 500', nextRetryAt: null });
    await sb.advance(acct.apiKey, 60);
    expect(rx.received).toHaveLength(3);
  });

  it.each([
    ['an unknown event', async () => ({ eventId: 'evt_unknown' }), 'eventId: no such event for this account'],
    [
      'no webhook configured',
      async () => {
        await newCard(sb, acct.apiKey, 50);
        await sb.request.delete('/v1/webhook').set('X-API-KEY', acct.apiKey);
        return { eventId: (await sim(sb, acct.apiKey, 'events')).body.events[0].id };
      },
      'no webhook is configured: PUT /v1/webhook first',
    ],
    [
      'a disabled webhook',
      async () => {
        await newCard(sb, acct.apiKey, 50);
        await putWebhook({ url: rx.url, enabled: false });
        return { eventId: (await sim(sb, acct.apiKey, 'events')).body.events[0].id };
      },
      'the webhook is disabled: enable it to deliver',
    ],
    ['a missing eventId', async () => ({}), 'eventId is required'],
  ])('fails with 400 for %s', async (_name, body, message) => {
    const res = await sim(sb, acct.apiKey, 'webhook/redeliver', await body());
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
  });
});

describe('POST /sandbox/v1/reset', () => {
  it('wipes events, deliveries and pending retries but keeps the webhook config', async () => {
    rx.fallback = behaviours.status(500);
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    expect((await sim(sb, acct.apiKey, 'reset')).status).toBe(200);
    expect((await sim(sb, acct.apiKey, 'events')).body.events).toEqual([]);
    expect((await sim(sb, acct.apiKey, 'webhook/deliveries')).body.deliveries).toEqual([]);
    await sb.advance(acct.apiKey, 86_400);
    expect(rx.received).toHaveLength(1);
    const config = await sb.request.get('/v1/webhook').set('X-API-KEY', acct.apiKey);
    expect(config.body).toMatchObject({ configured: true, url: rx.url });
  });
});
