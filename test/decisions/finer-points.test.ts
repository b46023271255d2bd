import { describe, expect } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { newCard, sim } from '../helpers/core.js';
import { authorize } from '../helpers/card-network.js';

// docs/design.md sections 8 and 11 (Webhooks, Finer points): decisions no other test pins down on their own.
let sb: TestSandbox;
let acct: AccountHandle;
let cardId: string;

it.beforeEach(async ({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  cardId = await newCard(sb, acct.apiKey, 1000);
});

describe('FX to USD', () => {
  it.each([
    ['EUR', 100, 108.65], // 100 * 1.08 * 1.006 = 108.648
    ['GBP', 10, 12.78], // 12.7762
    ['JPY', 1000, 6.74], // 6.7402
    ['SGD', 10, 7.44], // 7.4444
    ['HKD', 100, 12.88], // 12.87680
    ['CNY', 100, 14.08], // 14.084
    ['USD', 12.34, 12.34], // no conversion, no fx fee
  ])(
    'converts %s with the fixed rate table: billAmount = round_half_up_to_cent(amount * rate * (1 + fee.fx))',
    async (currency, amount, bill) => {
      const res = await authorize(sb, acct.apiKey, cardId, { amount, currency });
      expect(res.body).toMatchObject({ status: 'PENDING', billAmount: bill });
    },
  );

  it('rounds half up to the cent', async () => {
    // With fee.fx 0.5: 0.25 EUR * 1.08 * 1.5 = 0.405 exactly -> 0.41 (half up, not half to even, not a float
    // 0.40499...); 0.05 EUR * 1.08 * 1.5 = 0.081 -> 0.08.
    await sb.admin('put', '/admin/v1/bins/VISA-EFI-454924', { fee: { fx: '0.5' } });
    expect((await authorize(sb, acct.apiKey, cardId, { amount: 0.25, currency: 'EUR' })).body.billAmount).toBe(0.41);
    expect((await authorize(sb, acct.apiKey, cardId, { amount: 0.05, currency: 'EUR' })).body.billAmount).toBe(0.08);
  });
});

describe('Decline reasons', () => {
  it.each([
    'CARD_NOT_ACTIVE',
    'INSUFFICIENT_FUNDS',
    'DAILY_LIMIT_EXCEEDED',
    'DO_NOT_HONOR',
    'SUSPECTED_FRAUD',
    'INVALID_CVV',
    'EXPIRED_CARD',
    'MERCHANT_BLOCKED',
  ])('accepts %s as a forced decline reason', async (reason) => {
    const res = await authorize(sb, acct.apiKey, cardId, { amount: 1, declineReason: reason });
    expect(res.body).toMatchObject({ status: 'DECLINED', declineReason: reason });
  });

  it('refuses an unknown forced decline reason with 400', async () => {
    const res = await authorize(sb, acct.apiKey, cardId, { amount: 1, declineReason: 'BECAUSE' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
  });
});

describe('3DS OTP', () => {
  it('is redacted from /sandbox/v1/events: the card/3ds answer is the only read that has it', async () => {
    const raised = await sim(sb, acct.apiKey, 'card/3ds', { cardId, type: 'payment', amount: 5 });
    const { otp } = raised.body;
    expect(otp).toMatch(/^\d{6}$/);
    const events = await sim(sb, acct.apiKey, 'events', { type: 'card.3ds.requested' });
    expect(events.body.events).toHaveLength(1);
    expect(events.body.events[0].data).not.toHaveProperty('otp');
    expect(JSON.stringify(events.body)).not.toContain(otp);
    const reads = [
      await sb.post(acct.apiKey, '/v1/card/detail', { cardId }),
      await sb.post(acct.apiKey, '/v1/bill/list', { cardId }),
      await sim(sb, acct.apiKey, 'webhook/deliveries', {}),
    ];
    for (const res of reads) expect(JSON.stringify(res.body)).not.toContain(otp);
  });
});

describe('Webhook attempt timeout', () => {
  it('an attempt fails after 10 s by default', () => {
    expect(DEFAULT_CONFIG.webhookTimeoutMs).toBe(10_000);
  });
});
