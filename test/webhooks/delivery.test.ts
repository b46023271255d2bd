import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { emitEvent } from '../../src/domain/events/outbox.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';
import { behaviours, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { specVerify } from './spec-verifier.js';
import { newCard, putWebhookConfig } from '../helpers/core.js';

let sb: TestSandbox;
let acct: AccountHandle;
let rx: Receiver;
let secret: string;

async function setUp(config: Partial<Config> = {}, webhook: Record<string, unknown> = {}) {
  sb = createTestSandbox({ config });
  acct = await sb.account({ balance: 1000 });
  rx = await startReceiver();
  const res = await putWebhook({ url: rx.url, ...webhook });
  expect(res.status).toBe(200);
  secret = res.body.secret;
}

const putWebhook = (body: Record<string, unknown>) => putWebhookConfig(sb, acct.apiKey, body);

const deliveries = async (eventId?: string) =>
  (await sb.post(acct.apiKey, '/sandbox/v1/webhook/deliveries', eventId ? { eventId } : {})).body.deliveries;
const events = async () => (await sb.post(acct.apiKey, '/sandbox/v1/events', {})).body.events;
const wallSeconds = () => Math.floor(sb.wall.ms / 1000);

afterEach(async () => {
  await rx?.close();
  await sb?.close();
});

describe('delivery of card events (spec Events)', () => {
  beforeEach(() => setUp());

  it('POSTs card.created with the raw JSON envelope and the Service-* headers, signed over the raw body', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    expect(rx.received).toHaveLength(1);
    const [got] = rx.received;
    expect(got.body).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Za-z]{24}$/),
      type: 'card.created',
      created: wallSeconds(),
      data: { cardId, binId: 'VISA-EFI-454924', status: 'ACTIVE' },
    });
    expect(Object.keys(got.body)).toEqual(['id', 'type', 'created', 'data']);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['service-event-id']).toBe(got.body.id);
    expect(got.headers['service-event-type']).toBe('card.created');
    const header = got.headers['service-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature({ rawBody: got.rawBody, header, secret, now: wallSeconds() })).toEqual({
      ok: true,
      timestamp: wallSeconds(),
    });
    expect(await specVerify(new TextEncoder().encode(got.rawBody), header, secret, wallSeconds())).toBe(true);
  });

  it.each([
    ['card.frozen', ['/v1/card/freeze']],
    ['card.unfrozen', ['/v1/card/freeze', '/v1/card/unfreeze']],
    ['card.cancelled', ['/v1/card/cancel']],
  ])('delivers %s with data {cardId}', async (type, calls) => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    for (const path of calls) expect((await sb.post(acct.apiKey, path, { cardId })).status).toBe(200);
    await sb.advance(acct.apiKey, 5);
    const got = rx.received.find((r) => r.body.type === type);
    expect(got?.body.data).toEqual({ cardId });
    expect(got?.headers['service-event-type']).toBe(type);
    expect(
      verifyWebhookSignature({
        rawBody: got!.rawBody,
        header: got!.headers['service-signature'] as string,
        secret,
        now: wallSeconds(),
      }).ok,
    ).toBe(true);
  });

  it('delivers every event of a card lifecycle in the order they happened', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    for (const path of ['/v1/card/freeze', '/v1/card/unfreeze', '/v1/card/cancel']) {
      await sb.post(acct.apiKey, path, { cardId });
    }
    await sb.advance(acct.apiKey, 10);
    expect(rx.received.map((r) => r.body.type)).toEqual([
      'card.created',
      'card.frozen',
      'card.unfrozen',
      'card.cancelled',
    ]);
  });

  it('the account time of the event is `created`; the signature t is wall time, so it verifies after clock jumps', async () => {
    await sb.advance(acct.apiKey, 86_400);
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    const [got] = rx.received;
    expect(got.body.created).toBe(wallSeconds() + 86_400);
    const header = got.headers['service-signature'] as string;
    expect(verifyWebhookSignature({ rawBody: got.rawBody, header, secret, now: wallSeconds() }).ok).toBe(true);
  });

  it('the old secret stops verifying at once after rotate-secret', async () => {
    const rotated = await sb.request.post('/v1/webhook/rotate-secret').set('X-API-KEY', acct.apiKey);
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    const [got] = rx.received;
    const header = got.headers['service-signature'] as string;
    const check = (s: string) =>
      verifyWebhookSignature({ rawBody: got.rawBody, header, secret: s, now: wallSeconds() });
    expect(check(rotated.body.secret).ok).toBe(true);
    expect(check(secret)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });

  it('a retry scheduled before a rotation is signed with the new secret', async () => {
    rx.queue.push(behaviours.status(500));
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    const rotated = await sb.request.post('/v1/webhook/rotate-secret').set('X-API-KEY', acct.apiKey);
    await sb.advance(acct.apiKey, 60);
    const retry = rx.received[1];
    const header = retry.headers['service-signature'] as string;
    expect(
      verifyWebhookSignature({ rawBody: retry.rawBody, header, secret: rotated.body.secret, now: wallSeconds() }).ok,
    ).toBe(true);
    expect(verifyWebhookSignature({ rawBody: retry.rawBody, header, secret, now: wallSeconds() }).ok).toBe(false);
  });

  it('never runs an attempt on the request path: the request that caused the event does not wait on the receiver', async () => {
    // The receiver would hang: an attempt made on the request path would have reached it before the answer (and
    // held the answer for the whole webhook timeout). None has.
    rx.fallback = behaviours.hang;
    await newCard(sb, acct.apiKey, 50);
    expect(rx.received).toHaveLength(0);
    expect((await events())[0].delivery).toEqual({
      state: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(sb.wall.ms).toISOString(),
    });
  });
});

describe('header prefix (server option webhookHeaderPrefix)', () => {
  it('names the headers <P>-Signature, <P>-Event-Id and <P>-Event-Type', async () => {
    await setUp({ webhookHeaderPrefix: 'Acme' });
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    const { headers, body } = rx.received[0];
    expect(headers['acme-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(headers['acme-event-id']).toBe(body.id);
    expect(headers['acme-event-type']).toBe('card.created');
    expect(headers['service-signature']).toBeUndefined();
  });
});

describe('retries (spec Events, rule 1): 1 min, 5 min, 30 min, 2 h, 5 h, 10 h of account time', () => {
  beforeEach(() => setUp());

  it('retries a failing receiver attempt by attempt, with the same event id and a fresh signature each time', async () => {
    rx.fallback = behaviours.status(500);
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    expect(rx.received).toHaveLength(1);
    const delays = [60, 300, 1800, 7200, 18_000, 36_000];
    for (const [i, delay] of delays.entries()) {
      sb.wall.ms += 7000; // wall time moves between attempts, so every signature has its own t
      await sb.advance(acct.apiKey, delay - 1 - 7);
      expect(rx.received).toHaveLength(i + 1);
      await sb.advance(acct.apiKey, 1);
      expect(rx.received).toHaveLength(i + 2);
      const got = rx.received[i + 1];
      const header = got.headers['service-signature'] as string;
      expect(header.split(',')[0]).toBe(`t=${wallSeconds()}`);
      expect(verifyWebhookSignature({ rawBody: got.rawBody, header, secret, now: wallSeconds() }).ok).toBe(true);
    }
    expect(new Set(rx.received.map((r) => r.body.id)).size).toBe(1);
    expect(new Set(rx.received.map((r) => r.headers['service-signature'])).size).toBe(7);
    await sb.advance(acct.apiKey, 7 * 86_400);
    expect(rx.received).toHaveLength(7);

    const log = (await deliveries()).reverse();
    expect(log.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const at = log.map((a: { at: string }) => Date.parse(a.at));
    expect(at.slice(1).map((t: number, i: number) => (t - at[i]) / 1000)).toEqual(delays);
    expect(log.map((a: { nextRetryAt: string | null }) => a.nextRetryAt)).toEqual([
      ...at.slice(1).map((t: number) => new Date(t).toISOString()),
      null,
    ]);
    expect(
      log.every((a: { statusCode: number; error: string }) => a.statusCode === 500 && a.error === 'HTTP 500'),
    ).toBe(true);
    expect((await events())[0].delivery).toEqual({ state: 'failed', attempts: 7, nextAttemptAt: null });
  });

  it('stops retrying once an attempt is acknowledged with any 2xx', async () => {
    rx.queue.push(behaviours.status(503), behaviours.status(404), behaviours.status(204));
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    await sb.advance(acct.apiKey, 60);
    await sb.advance(acct.apiKey, 300);
    expect(rx.received).toHaveLength(3);
    await sb.advance(acct.apiKey, 2 * 86_400);
    expect(rx.received).toHaveLength(3);
    expect((await events())[0].delivery).toEqual({ state: 'delivered', attempts: 3, nextAttemptAt: null });
    const [last] = await deliveries();
    expect(last).toMatchObject({ attempt: 3, statusCode: 204, error: null, nextRetryAt: null });
  });

  it('one clock advance over the whole 17.6 h runs all 7 attempts in time order', async () => {
    rx.fallback = behaviours.status(500);
    await newCard(sb, acct.apiKey, 50);
    // How long this takes is a figure of `npm run bench` (the webhook retry schedule), not asserted here.
    await sb.advance(acct.apiKey, 63_360);
    expect(rx.received).toHaveLength(7);
  });

  it('DELETE /v1/webhook cancels pending retries', async () => {
    rx.fallback = behaviours.status(500);
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    expect((await sb.request.delete('/v1/webhook').set('X-API-KEY', acct.apiKey)).status).toBe(200);
    await sb.advance(acct.apiKey, 86_400);
    expect(rx.received).toHaveLength(1);
    expect((await events())[0].delivery).toEqual({ state: 'cancelled', attempts: 1, nextAttemptAt: null });
    expect(await sb.deps.store.value("SELECT COUNT(*) FROM jobs WHERE kind = 'webhook.attempt'")).toBe(0);
  });

  it('retries go to the URL configured at the time of the retry', async () => {
    rx.fallback = behaviours.status(500);
    const other = await startReceiver();
    try {
      await newCard(sb, acct.apiKey, 50);
      await sb.advance(acct.apiKey, 0);
      await putWebhook({ url: other.url });
      await sb.advance(acct.apiKey, 60);
      expect(rx.received).toHaveLength(1);
      expect(other.received).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});

describe('disabled endpoints (enabled: false)', () => {
  it('record events but deliver nothing, and build no backlog for when they are enabled again', async () => {
    await setUp({}, { enabled: false });
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 3600);
    expect(rx.received).toHaveLength(0);
    expect((await events())[0].delivery).toEqual({ state: 'disabled', attempts: 0, nextAttemptAt: null });
    await putWebhook({ url: rx.url, enabled: true });
    await sb.advance(acct.apiKey, 3600);
    expect(rx.received).toHaveLength(0);
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    expect(rx.received).toHaveLength(1);
  });

  it('disabling stops the retries of a failing delivery', async () => {
    await setUp();
    rx.fallback = behaviours.status(500);
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    await putWebhook({ url: rx.url, enabled: false });
    await sb.advance(acct.apiKey, 86_400);
    expect(rx.received).toHaveLength(1);
    expect((await events())[0].delivery.state).toBe('disabled');
  });

  it('events of an account without a webhook are recorded with delivery state none', async () => {
    sb = createTestSandbox();
    acct = await sb.account({ balance: 100 });
    await newCard(sb, acct.apiKey, 50);
    expect((await events())[0].delivery).toEqual({ state: 'none', attempts: 0, nextAttemptAt: null });
  });
});

describe('delivery-only fields (the 3DS code, gated by deliver3dsCode)', () => {
  it('adds the field at send time, never to the stored event, gated by deliver3dsCode', async () => {
    await setUp({}, { deliver3dsCode: true });
    const cardId = await newCard(sb, acct.apiKey, 50);
    const raise3ds = async () =>
      (await sb.post(acct.apiKey, '/sandbox/v1/card/3ds', { cardId, type: 'payment' })).body.otp as string;
    const otp = await raise3ds();
    await sb.advance(acct.apiKey, 0);
    const delivered3ds = () => rx.received.filter((r) => r.body.type === 'card.3ds.requested');
    expect(delivered3ds()[0]!.body.data.otp).toBe(otp);
    const stored = (await events()).find((e: { type: string }) => e.type === 'card.3ds.requested');
    expect(stored.data).not.toHaveProperty('otp');
    expect(JSON.stringify(await sb.deps.store.all('SELECT data FROM events'))).not.toContain(`"${otp}"`);

    await putWebhook({ url: rx.url, deliver3dsCode: false });
    await raise3ds();
    await sb.advance(acct.apiKey, 0);
    expect(delivered3ds()[1]!.body.data).not.toHaveProperty('otp');
  });
});

describe('bad receivers cost one failed attempt, nothing more', () => {
  // Only the hanging receiver needs a short timeout; the others keep the default, so a busy machine cannot turn
  // their answer into a timeout.
  it.each([
    ['hangs past the timeout', behaviours.hang, /^timeout after 300 ms$/, null, 300],
    ['resets the connection', behaviours.reset, /connection reset|socket hang up/, null, undefined],
    ['redirects (not followed)', behaviours.redirect, /^HTTP 302: redirects are not followed$/, 302, undefined],
    ['answers a 10 MiB body', behaviours.huge, /^response body larger than 4096 bytes$/, 200, undefined],
  ])('a receiver that %s', async (_name, behaviour, error, statusCode, webhookTimeoutMs) => {
    await setUp(webhookTimeoutMs === undefined ? {} : { webhookTimeoutMs });
    rx.queue.push(behaviour);
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    expect(rx.received).toHaveLength(1);
    const [attempt] = await deliveries();
    expect(attempt.statusCode).toBe(statusCode);
    expect(attempt.error).toMatch(error);
    expect(Date.parse(attempt.nextRetryAt) - Date.parse(attempt.at)).toBe(60_000);
    expect(attempt.latencyMs).toEqual(expect.any(Number));
    await sb.advance(acct.apiKey, 60);
    expect(rx.received).toHaveLength(2);
    expect((await events())[0].delivery.state).toBe('delivered');
  });

  it('a receiver that refuses connections', async () => {
    await setUp();
    await rx.close();
    await newCard(sb, acct.apiKey, 50);
    await sb.advance(acct.apiKey, 0);
    const [attempt] = await deliveries();
    expect(attempt).toMatchObject({ statusCode: null, error: 'connection refused', attempt: 1 });
  });
});

describe('events of the other modules go out through the same pipeline unchanged', () => {
  beforeEach(() => setUp());

  // Every field of the spec's "Transaction event data", as the event contracts require.
  const spend = {
    transactionId: 'txn_000000000000000000000001',
    cardId: '2026060100000000000001',
    status: 'PENDING',
    billAmount: 12.5,
    billCurrency: 'USD',
    transactionAmount: 12.5,
    transactionCurrency: 'USD',
    merchantName: 'COFFEE',
    merchantCountry: 'US',
    mccCategory: 'Restaurants',
    eventType: 'SPEND',
    settledAt: '2026-06-01T00:00:00',
  };

  // The simulation module owns these shapes; this proves only that whatever it writes to the outbox is what the
  // receiver gets, in the four-field envelope with the matching Event-Type header.
  it.each([
    ['transaction.created', spend],
    ['transaction.updated', { ...spend, status: 'CLEARED', previousStatus: 'PENDING' }],
    [
      'card.3ds.requested',
      {
        type: 'payment',
        merchant: 'SHOP',
        amount: '10',
        currency: 'USD',
        cardId: '2026060100000000000001',
        last4: '1234',
      },
    ],
  ] as const)('%s', async (type, data) => {
    await sb.deps.transactions.run(async (deps) => emitEvent(deps, acct.accountId, sb.wall.ms, type, { ...data }));
    await sb.advance(acct.apiKey, 0);
    const [got] = rx.received;
    expect(got.body).toEqual({ id: expect.stringMatching(/^evt_/), type, created: wallSeconds(), data });
    expect(got.headers['service-event-type']).toBe(type);
    expect(
      verifyWebhookSignature({
        rawBody: got.rawBody,
        header: got.headers['service-signature'],
        secret,
        now: wallSeconds(),
      }).ok,
    ).toBe(true);
  });
});
