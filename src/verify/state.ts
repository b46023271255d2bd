import type { CheckContext } from './context.js';
import { balanceMicros, micros } from './money.js';

export interface Bin {
  id: string;
  enabled: boolean;
  fee: { deposit: string; card: string };
  limit: { minimalDeposit: string };
}

export async function walletMicros(ctx: CheckContext): Promise<number> {
  const ex = await ctx.post('/v1/wallet/assetList');
  ctx.require(ctx.expectStatus(ex, 200));
  const list = (ex.json as { assetList?: { currency: string; availableAmount: unknown }[] }).assetList ?? [];
  return micros(list.find((a) => a.currency === 'USDT')?.availableAmount);
}

export async function cardAvailable(ctx: CheckContext, cardId: string): Promise<number> {
  const ex = await ctx.post('/v1/card/asset', { cardId });
  ctx.require(ctx.expectStatus(ex, 200));
  return balanceMicros((ex.json as { availableAmount: unknown }).availableAmount);
}

export async function firstEnabledBin(ctx: CheckContext): Promise<Bin> {
  const ex = await ctx.post('/v1/card/binList');
  ctx.require(ctx.expectStatus(ex, 200));
  const bin = (ex.json as { availableCardBinList?: Bin[] }).availableCardBinList?.find((b) => b.enabled);
  if (!bin) ctx.skip('no enabled BIN to issue on');
  return bin;
}

/**
 * Waits until a top-up has settled. On this sandbox the account clock is advanced (no sleeping); elsewhere the
 * card balance is re-read, as the spec tells clients to, for up to 30 s.
 */
export async function settle(ctx: CheckContext, check: () => Promise<boolean>): Promise<boolean> {
  if (ctx.state.isSandbox) {
    await ctx.post('/sandbox/v1/clock', { advanceSeconds: 10 });
    return check();
  }
  for (let i = 0; i < 30; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return check();
}

/** The card made by the create check, shared by the later mutation checks. */
export function madeCard(ctx: CheckContext): string {
  const id = ctx.state.values.get('cardId');
  if (typeof id !== 'string') ctx.skip('no card was created by the card/create check');
  return id;
}
