import { describe, expect } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { FUNDED_ACCOUNT, webhookTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { behaviours, type Receiver } from '../helpers/webhook-receiver.js';
import { captureLogger, newCard, putWebhookConfig, sim } from '../helpers/core.js';
import { authorize } from '../helpers/card-network.js';

// Fidelity audit: every event type as a partner's receiver gets it from the merged server (real 3DS module,
// real transaction simulation, real webhook sender), field by field against the spec's Events tables.

let sb: TestSandbox;
let acct: AccountHandle;
let rx: Receiver;
let secret: string;
const logged: string[] = [];

const key = () => acct.apiKey;
const putWebhook = (body: Record<string, unknown>) => putWebhookConfig(sb, key(), body);
const flush = () => sb.advance(key(), 0);
const bodiesOf = (type: string) => rx.received.filter((r) => r.body.type === type);

it.override({ sandboxOptions: { logger: captureLogger(logged) }, accountOptions: FUNDED_ACCOUNT });
it.beforeEach(({ sb: s, acct: a, rx: r, secret: k }) => {
  [sb, acct, rx, secret] = [s, a, r, k];
  logged.length = 0;
});

/** The spec's "Transaction event data" table: every field, with its JSON type. */
const TXN_FIELDS = {
  transactionId: 'string',
  cardId: 'string',
  status: 'string',
  billAmount: 'number',
  billCurrency: 'string',
  transactionAmount: 'number',
  transactionCurrency: 'string',
  merchantName: 'string',
  merchantCountry: 'string',
  mccCategory: 'string',
  eventType: 'string',
  settledAt: 'string',
} as const;
const LOCAL_ISO_WITHOUT_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?$/;

function expectSpecEnvelope(got: (typeof rx.received)[number]) {
  expect(Object.keys(got.body).sort()).toEqual(['created', 'data', 'id', 'type']);
  expect(got.body.id).toMatch(/^evt_/);
  expect(Number.isInteger(got.body.created)).toBe(true);
  expect(got.headers['service-event-id']).toBe(got.body.id);
  expect(got.headers['service-event-type']).toBe(got.body.type);
  const check = verifyWebhookSignature({
    rawBody: got.rawBody,
    header: got.headers['service-signature'],
    secret,
    now: Math.floor(sb.wall.ms / 1000),
  });
  expect(check.ok).toBe(true);
}

function expectTransactionData(data: Record<string, unknown>, updated: boolean) {
  const expected = updated ? { ...TXN_FIELDS, previousStatus: 'string' } : TXN_FIELDS;
  expect(Object.keys(data).sort()).toEqual(Object.keys(expected).sort());
  for (const [field, type] of Object.entries(expected)) expect(typeof data[field], field).toBe(type);
  expect(data.settledAt).toMatch(LOCAL_ISO_WITHOUT_ZONE);
}

describe('Events: every transaction event delivered matches the spec table field by field', () => {
  it('authorize, clear, reverse, refund and a decline deliver transaction.created then transaction.updated with previousStatus', async () => {
    const cardId = await newCard(sb, key(), 100);
    const a1 = (await authorize(sb, key(), cardId, { amount: 12.5 })).body.transactionId;
    expect((await sim(sb, key(), 'transaction/clear', { transactionId: a1, amount: 10 })).status).toBe(200);
    const a2 = (await authorize(sb, key(), cardId, { amount: 3, currency: 'EUR' })).body.transactionId;
    expect((await sim(sb, key(), 'transaction/reverse', { transactionId: a2 })).status).toBe(200);
    expect((await sim(sb, key(), 'transaction/refund', { transactionId: a1, amount: 4 })).status).toBe(200);
    expect((await authorize(sb, key(), cardId, { amount: 5000 })).body.status).toBe('DECLINED');
    await flush();

    const created = bodiesOf('transaction.created');
    const updated = bodiesOf('transaction.updated');
    expect(created).toHaveLength(4);
    expect(updated).toHaveLength(4);
    for (const got of [...created, ...updated]) expectSpecEnvelope(got);
    for (const got of created) {
      expectTransactionData(got.body.data, false);
      expect(got.body.data.status).toBe('PENDING');
    }
    for (const got of updated) {
      expectTransactionData(got.body.data, true);
      expect(got.body.data.previousStatus).toBe('PENDING');
    }
    expect(updated.map((u) => u.body.data.status)).toEqual(['CLEARED', 'CANCELLED', 'REFUND', 'DECLINED']);
    expect(updated[0].body.data).toMatchObject({ billAmount: 10, transactionAmount: 10, cardId });
    expect(updated[1].body.data).toMatchObject({
      transactionCurrency: 'EUR',
      transactionAmount: 3,
      billCurrency: 'USD',
    });
  });

  it('a PENDING authorisation left 7 days is delivered as transaction.updated CANCELLED', async () => {
    const cardId = await newCard(sb, key(), 100);
    const id = (await authorize(sb, key(), cardId, { amount: 1 })).body.transactionId;
    await sb.advance(key(), 7 * 24 * 3600);
    const [got] = bodiesOf('transaction.updated');
    expectTransactionData(got!.body.data, true);
    expect(got!.body.data).toMatchObject({ transactionId: id, status: 'CANCELLED', previousStatus: 'PENDING' });
  });
});

describe('Events: card lifecycle events carry exactly the spec data', () => {
  it('card.created {cardId, binId, status}, card.frozen/unfrozen/cancelled {cardId}', async () => {
    const cardId = await newCard(sb, key(), 100);
    for (const path of ['/v1/card/freeze', '/v1/card/unfreeze', '/v1/card/cancel']) {
      expect((await sb.post(key(), path, { cardId })).status).toBe(200);
    }
    await sb.advance(key(), 5);
    expect(rx.received.map((r) => r.body.type)).toEqual([
      'card.created',
      'card.frozen',
      'card.unfrozen',
      'card.cancelled',
    ]);
    for (const got of rx.received) expectSpecEnvelope(got);
    expect(rx.received[0].body.data).toEqual({ cardId, binId: 'VISA-EFI-454924', status: 'ACTIVE' });
    for (const got of rx.received.slice(1)) expect(got.body.data).toEqual({ cardId });
  });
});

describe('Idempotency rule 3: a replay does not execute again, so it emits no second event', () => {
  it.each([
    ['/v1/card/create', (_id: string) => ({ amount: 10, currency: 'USDT' }), 'card.created'],
    ['/v1/card/freeze', (cardId: string) => ({ cardId }), 'card.frozen'],
  ])('%s replayed under the same key is delivered once', async (path, body, type) => {
    const cardId = await newCard(sb, key(), 100);
    for (let i = 0; i < 3; i++) {
      const res = await sb.post(key(), path, body(cardId), { 'Idempotency-Key': 'same-key' });
      expect(res.status).toBe(200);
      expect(res.headers['idempotent-replayed']).toBe(i === 0 ? undefined : 'true');
    }
    await sb.advance(key(), 3600);
    expect(bodiesOf(type)).toHaveLength(type === 'card.created' ? 2 : 1);
  });
});

describe('card.3ds.requested: otp present only when the configuration has deliver3dsCode true', () => {
  const raise = (cardId: string, body: Record<string, unknown> = {}) =>
    sim(sb, key(), 'card/3ds', { cardId, type: 'payment', merchant: 'Shop', amount: 9.99, currency: 'USD', ...body });

  it('with deliver3dsCode true the webhook body carries the OTP the challenge answers, and the code verifies', async () => {
    await putWebhook({ url: rx.url, deliver3dsCode: true });
    const cardId = await newCard(sb, key(), 100);
    const challenge = (await raise(cardId)).body;
    await flush();
    const [got] = bodiesOf('card.3ds.requested');
    expectSpecEnvelope(got!);
    const last4 = (await sb.post(key(), '/v1/card/sensitiveInfo', { cardId })).body.cardNo.slice(-4);
    expect(got!.body.data).toEqual({
      type: 'payment',
      merchant: 'Shop',
      amount: '9.99',
      currency: 'USD',
      cardId,
      last4,
      otp: challenge.otp,
    });
    const verified = await sim(sb, key(), '3ds/verify', {
      challengeId: challenge.challengeId,
      otp: got!.body.data.otp as string,
    });
    expect(verified.body.result).toBe('APPROVED');
  });

  it('with deliver3dsCode false (the default) the webhook body has no otp', async () => {
    const cardId = await newCard(sb, key(), 100);
    await raise(cardId);
    await flush();
    const [got] = bodiesOf('card.3ds.requested');
    expect(got!.body.data).not.toHaveProperty('otp');
    expect(got!.body.data).toMatchObject({ cardId, type: 'payment' });
  });

  it('a retried 3DS delivery keeps its event id and OTP', async () => {
    await putWebhook({ url: rx.url, deliver3dsCode: true });
    const cardId = await newCard(sb, key(), 100);
    await flush();
    rx.queue.push(behaviours.status(500));
    const challenge = (await raise(cardId)).body;
    await flush();
    await sb.advance(key(), 60);
    const got = bodiesOf('card.3ds.requested');
    expect(got).toHaveLength(2);
    expect(got[1].body.id).toBe(got[0].body.id);
    expect(got.map((g) => g.body.data.otp)).toEqual([challenge.otp, challenge.otp]);
  });

  it('the OTP never appears in /sandbox/v1/events, delivery logs, card reads or server logs', async () => {
    await putWebhook({ url: rx.url, deliver3dsCode: true });
    const cardId = await newCard(sb, key(), 100);
    const { otp } = (await raise(cardId)).body;
    await flush();
    expect(bodiesOf('card.3ds.requested')[0]!.body.data.otp).toBe(otp);
    const reads = await Promise.all([
      sim(sb, key(), 'events', {}),
      sim(sb, key(), 'webhook/deliveries', {}),
      sb.post(key(), '/v1/card/detail', { cardId }),
      sb.post(key(), '/v1/card/list', {}),
      sb.post(key(), '/v1/bill/list', {}),
      sb.request.get('/v1/webhook').set('X-API-KEY', key()),
    ]);
    // Bounded by non-digits: a 6-digit code could otherwise match inside a card id or timestamp by chance.
    const code = new RegExp(`(?<![0-9])${otp}(?![0-9])`);
    for (const r of reads) expect(JSON.stringify(r.body)).not.toMatch(code);
    expect(JSON.stringify(await sb.deps.store.all('SELECT data FROM events'))).not.toMatch(code);
    expect(logged.join('\n')).not.toMatch(code);
  });

  it('cardId inbox rule: without a dedicated inbox cardId is set only while the account owns a single card', async () => {
    const first = await newCard(sb, key(), 100);
    await raise(first, { dedicatedInbox: false });
    await newCard(sb, key(), 100);
    await raise(first, { dedicatedInbox: false });
    await raise(first);
    await flush();
    const data = bodiesOf('card.3ds.requested').map((g) => g.body.data);
    expect(data.map((d) => d.cardId)).toEqual([first, undefined, first]);
    expect(data.every((d) => typeof d.last4 === 'string' && /^\d{4}$/.test(d.last4 as string))).toBe(true);
  });
});
