import { randomUUID } from 'node:crypto';
import type { Check, CheckContext } from '../context.js';
import { firstEnabledBin, madeCard, settle, walletMicros, cardAvailable } from '../state.js';
import { micros } from '../money.js';

/** The spec's idempotency rules 2-4, observed on card/deposit and card/freeze of the card the run created. */
export const idempotencyChecks: Check[] = [
  {
    name: 'idempotency: a retry with the same key and body replays with Idempotent-Replayed: true and moves funds once',
    kind: 'mutation',
    async run(ctx: CheckContext) {
      const cardId = madeCard(ctx);
      const bin = await firstEnabledBin(ctx);
      const amount = Math.max(micros(bin.limit.minimalDeposit), 1_000_000);
      ctx.spend(amount);
      const key = `verify-${randomUUID()}`;
      const before = await walletMicros(ctx);
      const body = { cardId, amount: amount / 1_000_000, currency: 'USDT' };
      const first = await ctx.post('/v1/card/deposit', body, { headers: { 'Idempotency-Key': key } });
      ctx.require(ctx.expectStatus(first, 200));
      if (first.headers.get('idempotency-key') !== key) ctx.fail('the key is not echoed in Idempotency-Key', first);
      // The same JSON value with another key order: still "an identical body".
      const retry = await ctx.post(
        '/v1/card/deposit',
        { currency: 'USDT', amount: body.amount, cardId },
        {
          headers: { 'Idempotency-Key': key },
        },
      );
      ctx.require(ctx.expectStatus(retry, first.status));
      if (retry.headers.get('idempotent-replayed') !== 'true')
        ctx.fail('the replay lacks Idempotent-Replayed: true', retry);
      if (retry.text !== first.text) ctx.fail('the replayed body differs from the first answer', retry);
      if (retry.headers.get('idempotency-key') !== key) ctx.fail('the replay does not echo Idempotency-Key', retry);
      const moved = before - (await walletMicros(ctx));
      if (moved !== amount) ctx.fail(`the wallet moved ${moved} micro-USDT for one keyed deposit of ${amount}`, retry);
      ctx.state.values.set('replayKey', { key, body });
      const card = await cardAvailable(ctx, cardId);
      await settle(ctx, async () => (await cardAvailable(ctx, cardId)) > card);
    },
  },
  {
    name: 'idempotency: the same key with a different body is HTTP 409 code 4211',
    kind: 'mutation',
    async run(ctx: CheckContext) {
      const used = ctx.state.values.get('replayKey') as { key: string; body: { amount: number } } | undefined;
      if (!used) ctx.skip('the replay check did not run');
      const ex = await ctx.post(
        '/v1/card/deposit',
        { ...used.body, amount: used.body.amount + 1 },
        {
          headers: { 'Idempotency-Key': used.key },
        },
      );
      ctx.expectError(ex, 409, 4211);
    },
  },
  {
    name: 'idempotency: the same key while the first request is in flight is HTTP 409 code 4212',
    kind: 'mutation',
    async run(ctx: CheckContext) {
      const cardId = madeCard(ctx);
      const key = `verify-${randomUUID()}`;
      const send = () => ctx.post('/v1/card/freeze', { cardId }, { headers: { 'Idempotency-Key': key } });
      if (ctx.state.isSandbox) {
        // Both requests take a hold fault: whichever reserves the key first is held until released, so the other
        // finds it in flight, whatever order they arrive in; faults/release then lets the held one go on.
        const set = await ctx.post('/sandbox/v1/faults', {
          rules: [{ path: '/v1/card/freeze', count: 2, hold: true }],
        });
        ctx.require(ctx.expectStatus(set, 200));
        const pair = [send(), send()];
        const early = await Promise.race(pair);
        await ctx.post('/sandbox/v1/faults/release');
        const answers = await Promise.all(pair);
        const held = answers[0] === early ? answers[1]! : answers[0]!;
        await ctx.post('/sandbox/v1/faults/clear');
        await ctx.post('/v1/card/unfreeze', { cardId });
        ctx.expectStatus(held, 200);
        ctx.expectError(early, 409, 4212);
        return;
      }
      const first = send();
      const second = await send();
      const done = await first;
      await ctx.post('/v1/card/unfreeze', { cardId });
      ctx.expectStatus(done, 200);
      if (second.status === 409) {
        ctx.expectError(second, 409, 4212);
        return;
      }
      ctx.skip('the first request finished before the retry arrived; could not hold it in flight');
    },
  },
];
