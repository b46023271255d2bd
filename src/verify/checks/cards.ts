import type { Check, CheckContext } from '../context.js';
import { expectedCredit, fmt, micros } from '../money.js';
import { cardAvailable, firstEnabledBin, madeCard, settle, walletMicros } from '../state.js';
import { UNKNOWN_CARD_ID } from './reads.js';

const CENT = 10_000;

/** The smallest amount the BIN accepts that still leaves a positive credit, rounded up to a cent. */
function smallestAmount(minimal: number, openFee: number, ratePpm: number): number {
  let amount = Math.max(minimal, openFee + CENT);
  while (expectedCredit(amount, ratePpm, openFee) <= 0) amount += CENT;
  return Math.ceil(amount / CENT) * CENT;
}

async function cardStatus(ctx: CheckContext, cardId: string): Promise<string | undefined> {
  const ex = await ctx.post('/v1/card/detail', { cardId });
  return ex.status === 200 ? (ex.json as { cardStatus?: string }).cardStatus : undefined;
}

export const cardMutationChecks: Check[] = [
  {
    name: 'mutation: card/create debits the amount and credits amount - amount * fee.deposit - fee.card',
    kind: 'mutation',
    async run(ctx: CheckContext) {
      const bin = await firstEnabledBin(ctx);
      const openFee = micros(bin.fee.card);
      const amount = smallestAmount(micros(bin.limit.minimalDeposit), openFee, micros(bin.fee.deposit));
      ctx.spend(amount);
      const before = await walletMicros(ctx);
      if (before < amount) ctx.skip(`the wallet holds ${fmt(before)} USDT, ${fmt(amount)} needed`);
      const ex = await ctx.post('/v1/card/create', { amount: amount / 1_000_000, currency: 'USDT', binId: bin.id });
      ctx.require(ctx.expectStatus(ex, 200));
      ctx.expectContract(ex);
      const cardId = (ex.json as { cardId: string }).cardId;
      ctx.state.values.set('cardId', cardId);
      const after = await walletMicros(ctx);
      if (before - after !== amount) ctx.fail(`wallet moved by ${fmt(before - after)}, expected ${fmt(amount)}`, ex);
      const credit = expectedCredit(amount, micros(bin.fee.deposit), openFee);
      const ok = await settle(ctx, async () => (await cardAvailable(ctx, cardId)) === credit);
      if (!ok) ctx.fail(`card credit is ${fmt(await cardAvailable(ctx, cardId))}, expected ${fmt(credit)}`);
    },
  },
  {
    name: 'mutation: card/deposit debits the wallet at once and credits the card net of fee.deposit',
    kind: 'mutation',
    async run(ctx: CheckContext) {
      const cardId = madeCard(ctx);
      const bin = await firstEnabledBin(ctx);
      const amount = smallestAmount(micros(bin.limit.minimalDeposit), 0, micros(bin.fee.deposit));
      ctx.spend(amount);
      const [wallet, card] = [await walletMicros(ctx), await cardAvailable(ctx, cardId)];
      const ex = await ctx.post('/v1/card/deposit', { cardId, amount: amount / 1_000_000, currency: 'USDT' });
      ctx.require(ctx.expectStatus(ex, 200));
      ctx.expectContract(ex);
      if (wallet - (await walletMicros(ctx)) !== amount) ctx.fail('the USDT debit is not synchronous', ex);
      const credit = expectedCredit(amount, micros(bin.fee.deposit), 0);
      const ok = await settle(ctx, async () => (await cardAvailable(ctx, cardId)) === card + credit);
      if (!ok) ctx.fail(`card did not reach ${fmt(card + credit)} (credit ${fmt(credit)})`);
    },
  },
  {
    name: 'mutation: card/deposit to an unknown card is 4001',
    kind: 'mutation',
    async run(ctx: CheckContext) {
      const ex = await ctx.post('/v1/card/deposit', { cardId: UNKNOWN_CARD_ID, amount: 1, currency: 'USDT' });
      ctx.expectError(ex, 400, 4001);
    },
  },
  {
    name: 'mutation: card/freeze makes the card FROZEN and card/unfreeze ACTIVE again',
    kind: 'mutation',
    async run(ctx: CheckContext) {
      const cardId = madeCard(ctx);
      const frozen = await ctx.post('/v1/card/freeze', { cardId });
      ctx.require(ctx.expectStatus(frozen, 200));
      ctx.expectContract(frozen);
      const s1 = await cardStatus(ctx, cardId);
      if (s1 !== 'FROZEN') ctx.fail(`after freeze the card is ${s1}`, frozen);
      const active = await ctx.post('/v1/card/unfreeze', { cardId });
      ctx.require(ctx.expectStatus(active, 200));
      ctx.expectContract(active);
      const s2 = await cardStatus(ctx, cardId);
      if (s2 !== 'ACTIVE') ctx.fail(`after unfreeze the card is ${s2}`, active);
    },
  },
];

/** Runs last among the mutations: it ends the card the others used. */
export const cancelCheck: Check = {
  name: 'mutation: card/cancel ends CANCELLED and returns the card balance to the wallet',
  kind: 'mutation',
  async run(ctx: CheckContext) {
    const cardId = madeCard(ctx);
    const [wallet, card] = [await walletMicros(ctx), await cardAvailable(ctx, cardId)];
    const ex = await ctx.post('/v1/card/cancel', { cardId });
    ctx.require(ctx.expectStatus(ex, 200));
    ctx.expectContract(ex);
    const ok = await settle(ctx, async () => (await cardStatus(ctx, cardId)) === 'CANCELLED');
    if (!ok) ctx.fail(`the card is ${await cardStatus(ctx, cardId)}, not CANCELLED`);
    const back = (await walletMicros(ctx)) - wallet;
    if (back !== card) ctx.fail(`the wallet got ${fmt(back)} back, the card held ${fmt(card)}`);
    ctx.state.spentMicros -= Math.min(back, ctx.state.spentMicros);
  },
};
