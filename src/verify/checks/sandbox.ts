import type { Check, CheckContext } from '../context.js';
import { micros } from '../money.js';
import { headerEndingWith, Receiver, signatureProblem } from '../receiver.js';
import { cardAvailable } from '../state.js';

/** A funded card on this sandbox: seeding is free here, so these checks never touch the spend budget. */
async function sandboxCard(ctx: CheckContext, amount = 20): Promise<string> {
  ctx.require(ctx.expectStatus(await ctx.post('/sandbox/v1/wallet/seed', { amount: amount + 5 }), 200));
  const ex = await ctx.post('/v1/card/create', { amount, currency: 'USDT' });
  ctx.require(ctx.expectStatus(ex, 200));
  return (ex.json as { cardId: string }).cardId;
}

async function sim(ctx: CheckContext, path: string, body: unknown): Promise<Record<string, unknown>> {
  const ex = await ctx.post(`/sandbox/v1/${path}`, body);
  ctx.require(ctx.expectStatus(ex, 200), `sandbox/v1/${path} failed`);
  ctx.expectContract(ex);
  return ex.json as Record<string, unknown>;
}

interface Bill {
  amount: string;
  status: string;
}

export const sandboxChecks: Check[] = [
  {
    name: 'sandbox: authorize holds, a partial clear releases the rest, a refund credits back, bill/list signs amounts',
    kind: 'sandbox',
    async run(ctx: CheckContext) {
      const cardId = await sandboxCard(ctx);
      const start = await cardAvailable(ctx, cardId);
      const auth = await sim(ctx, 'card/authorize', {
        cardId,
        amount: 5,
        currency: 'USD',
        merchantName: 'Verify Shop',
      });
      if (auth.status !== 'PENDING') ctx.fail(`authorisation answered ${String(auth.status)}, expected PENDING`);
      const held = await ctx.post('/v1/card/asset', { cardId });
      const asset = held.json as { availableAmount: string; frozenAmount: string };
      if (micros(asset.frozenAmount) !== 5_000_000 || micros(asset.availableAmount) !== start - 5_000_000) {
        ctx.fail('an approved authorisation of 5 must move 5 from available to frozen', held);
      }
      await sim(ctx, 'transaction/clear', { transactionId: auth.transactionId, amount: 4 });
      await sim(ctx, 'transaction/refund', { transactionId: auth.transactionId, amount: 1 });
      if ((await cardAvailable(ctx, cardId)) !== start - 3_000_000) ctx.fail('available must be start - 4 + 1');
      const over = await ctx.post('/sandbox/v1/transaction/refund', { transactionId: auth.transactionId, amount: 10 });
      ctx.expectError(over, 400, 400);
      const bills = await ctx.post('/v1/bill/list', { cardId });
      ctx.require(ctx.expectStatus(bills, 200));
      ctx.expectContract(bills);
      const rows = (bills.json as { transactions: Bill[] }).transactions.map((b) => `${b.status} ${b.amount}`);
      if (JSON.stringify(rows) !== JSON.stringify(['REVERTED 1.00', 'COMPLETED -4.00'])) {
        ctx.fail(`bill/list shows ${JSON.stringify(rows)}, expected REVERTED 1.00 then COMPLETED -4.00`, bills);
      }
    },
  },
  {
    name: 'sandbox: a 3DS challenge verifies its OTP once and expires after 600 s of account time',
    kind: 'sandbox',
    async run(ctx: CheckContext) {
      const cardId = await sandboxCard(ctx, 5);
      const ch = await sim(ctx, 'card/3ds', {
        cardId,
        type: 'payment',
        amount: 1.5,
        currency: 'USD',
        merchant: 'Verify',
      });
      const wrong = String(ch.otp) === '000000' ? '111111' : '000000';
      const bad = await sim(ctx, '3ds/verify', { challengeId: ch.challengeId, otp: wrong });
      if (bad.result !== 'INVALID_OTP') ctx.fail(`a wrong OTP answered ${String(bad.result)}`);
      const good = await sim(ctx, '3ds/verify', { challengeId: ch.challengeId, otp: ch.otp });
      if (good.result !== 'APPROVED') ctx.fail(`the right OTP answered ${String(good.result)}`);
      const late = await sim(ctx, 'card/3ds', { cardId, type: 'binding' });
      await sim(ctx, 'clock', { advanceSeconds: 601 });
      const expired = await sim(ctx, '3ds/verify', { challengeId: late.challengeId, otp: late.otp });
      if (expired.result !== 'EXPIRED') ctx.fail(`an OTP 601 s old answered ${String(expired.result)}`);
    },
  },
  {
    name: 'sandbox: events are delivered signed (t, v1 over t.body), with Event-Id and Event-Type headers',
    kind: 'sandbox',
    async run(ctx: CheckContext) {
      const receiver = new Receiver();
      const url = await receiver.start();
      try {
        const put = await ctx.call('PUT', '/v1/webhook', { body: { url, enabled: true, deliver3dsCode: true } });
        ctx.require(ctx.expectStatus(put, 200));
        let secret = (put.json as { secret?: string }).secret;
        // An existing configuration answers the PUT without a secret: rotate to learn one.
        secret ??= ((await ctx.post('/v1/webhook/rotate-secret')).json as { secret?: string } | undefined)?.secret;
        ctx.require(typeof secret === 'string', 'no webhook secret was returned');
        const cardId = await sandboxCard(ctx, 5);
        await ctx.post('/v1/card/freeze', { cardId });
        await ctx.post('/sandbox/v1/clock', { advanceSeconds: 0 });
        const got = await receiver.waitFor((d) => d.raw.includes(`"card.frozen"`) && d.raw.includes(cardId), 5000);
        ctx.require(got !== undefined, `no card.frozen delivery reached ${url} within 5 s`);
        const problem = signatureProblem(
          headerEndingWith(got.headers, '-signature'),
          got.raw,
          secret,
          Date.now() / 1000,
        );
        if (problem) ctx.fail(`card.frozen delivery: ${problem}`);
        const event = JSON.parse(got.raw.toString('utf8')) as { id: string; type: string };
        if (headerEndingWith(got.headers, '-event-id') !== event.id)
          ctx.fail('Event-Id header differs from the body id');
        if (headerEndingWith(got.headers, '-event-type') !== event.type) ctx.fail('Event-Type header differs');
        const violations = ctx.options.validator.validateEvent?.(event, { strict: ctx.options.strict }) ?? [];
        for (const v of violations) ctx.fail(`event contract ${v.schemaId}: ${v.instancePath || '/'} ${v.message}`);
      } finally {
        await ctx.call('DELETE', '/v1/webhook');
        await receiver.stop();
      }
    },
  },
];
