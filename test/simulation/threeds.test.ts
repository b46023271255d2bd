import { describe, expect } from 'vitest';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { webhookBody } from '../../src/webhooks/attempt.js';
import { captureLogger, eventsOf, fundedAccount, newCard, putWebhookConfig, sim } from '../helpers/core.js';

let sb: TestSandbox;
let acct: AccountHandle;
let key: string;
let cardId: string;
const logged: string[] = [];

it.override({ sandboxOptions: { logger: captureLogger(logged) } });
it.beforeEach(async ({ sb: s, acct: a }) => {
  logged.length = 0;
  [sb, acct] = [s, a];
  key = acct.apiKey;
  cardId = await newCard(sb, key, 50);
});

const raise = (body: Record<string, unknown> = {}) => sim(sb, key, 'card/3ds', { cardId, type: 'payment', ...body });
const last4 = async () => (await sb.post(key, '/v1/card/detail', { cardId })).body.maskedCardNo.slice(-4);

describe('card/3ds', () => {
  it("raises card.3ds.requested with the spec's fields and answers challengeId, a 6-digit otp and expiresAt", async () => {
    const res = await raise({ merchant: 'Shop', amount: 12.34, currency: 'EUR' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      code: 0,
      otp: expect.stringMatching(/^\d{6}$/),
      expiresAt: '2026-06-01T00:10:00.000Z',
    });
    expect(res.body.challengeId).toMatch(/^tds_/);
    const [event] = await eventsOf(sb, acct.accountId, 'card.3ds.requested');
    expect(event!.data).toEqual({
      type: 'payment',
      merchant: 'Shop',
      amount: '12.34',
      currency: 'EUR',
      cardId,
      last4: await last4(),
    });
  });

  it('leaves amount and currency out of a binding challenge raised without them, and fills the merchant', async () => {
    await raise({ type: 'binding' });
    const [event] = await eventsOf(sb, acct.accountId, 'card.3ds.requested');
    expect(event!.data).toEqual({ type: 'binding', merchant: expect.any(String), cardId, last4: await last4() });
  });

  it('gives a payment challenge raised without an amount a generated USD amount', async () => {
    await raise();
    const [event] = await eventsOf(sb, acct.accountId, 'card.3ds.requested');
    expect(event!.data).toMatchObject({
      type: 'payment',
      amount: expect.stringMatching(/^\d+(\.\d{1,2})?$/),
      currency: 'USD',
    });
  });

  it('without a dedicated inbox sets cardId only when the account owns a single card that is not cancelled', async () => {
    await raise({ dedicatedInbox: false });
    const second = await newCard(sb, key, 10);
    await raise({ dedicatedInbox: false });
    await sb.post(key, '/v1/card/cancel', { cardId: second });
    await sb.advance(key, 5);
    await raise({ dedicatedInbox: false });
    const events = await eventsOf(sb, acct.accountId, 'card.3ds.requested');
    expect(events.map((e) => 'cardId' in e.data)).toEqual([true, false, true]);
  });

  it('never stores the OTP, in the outbox or anywhere in the database, and never logs it', async () => {
    const { otp } = (await raise()).body;
    const dump = JSON.stringify(
      await Promise.all(
        ['events', 'threeds_challenges', 'transfers', 'jobs'].map((t) => sb.deps.store.all(`SELECT * FROM ${t}`)),
      ),
    );
    // Quoted: a bare 6-digit run could occur by chance inside a card id or a timestamp.
    expect(dump).not.toContain(`"${otp}"`);
    expect(dump).not.toContain('otp');
    expect(logged.join('\n')).not.toContain(otp);
  });

  it('adds the OTP at delivery time only when the webhook config asks for codes (deliver3dsCode)', async () => {
    const { otp } = (await raise()).body;
    const [event] = await eventsOf(sb, acct.accountId, 'card.3ds.requested');
    // The body the webhook sender would POST now, for the account's current webhook config.
    const delivered = async () => JSON.parse(await webhookBody(sb.deps, event!)).data;
    const configure = async (deliver3dsCode: boolean) =>
      expect((await putWebhookConfig(sb, key, { url: 'https://hooks.example.com/', deliver3dsCode })).status).toBe(200);
    expect(await delivered()).toEqual(event!.data);
    await configure(false);
    expect(await delivered()).toEqual(event!.data);
    await configure(true);
    expect(await delivered()).toEqual({ ...event!.data, otp });
  });

  it("answers 4001 for another account's card and 400 for a cancelled card", async () => {
    const other = await fundedAccount(sb);
    expect((await sim(sb, other.apiKey, 'card/3ds', { cardId, type: 'payment' })).body.code).toBe(4001);
    await sb.post(key, '/v1/card/cancel', { cardId });
    await sb.advance(key, 5);
    expect((await raise()).body).toEqual({ code: 400, message: 'card is cancelled' });
  });

  it('rejects an unknown type with 400', async () => {
    expect((await raise({ type: 'login' })).body).toEqual({
      code: 400,
      message: 'type must be one of payment, binding',
    });
  });
});

describe('3ds/verify', () => {
  it('answers APPROVED for the right code, then INVALID_OTP when it is used again', async () => {
    const { challengeId, otp } = (await raise()).body;
    expect((await sim(sb, key, '3ds/verify', { challengeId, otp })).body).toEqual({
      code: 0,
      message: 'ok',
      result: 'APPROVED',
    });
    expect((await sim(sb, key, '3ds/verify', { challengeId, otp })).body.result).toBe('INVALID_OTP');
  });

  it('answers INVALID_OTP for a wrong code', async () => {
    const { challengeId, otp } = (await raise()).body;
    const wrong = otp === '000000' ? '000001' : '000000';
    expect((await sim(sb, key, '3ds/verify', { challengeId, otp: wrong })).body.result).toBe('INVALID_OTP');
  });

  it('answers EXPIRED after 600 s of account time, and accepts the code at 599 s', async () => {
    const a = (await raise()).body;
    const b = (await raise()).body;
    await sb.advance(key, 599);
    expect((await sim(sb, key, '3ds/verify', { challengeId: a.challengeId, otp: a.otp })).body.result).toBe('APPROVED');
    await sb.advance(key, 1);
    expect((await sim(sb, key, '3ds/verify', { challengeId: b.challengeId, otp: b.otp })).body.result).toBe('EXPIRED');
  });

  it('forgets challenges on reset', async () => {
    const { challengeId, otp } = (await raise()).body;
    await sim(sb, key, 'reset');
    expect((await sim(sb, key, '3ds/verify', { challengeId, otp })).body).toEqual({
      code: 400,
      message: 'challenge not found',
    });
  });

  it("answers 400 for an unknown challenge or another account's", async () => {
    const { challengeId, otp } = (await raise()).body;
    const other = await fundedAccount(sb);
    expect((await sim(sb, other.apiKey, '3ds/verify', { challengeId, otp })).body).toEqual({
      code: 400,
      message: 'challenge not found',
    });
  });
});
