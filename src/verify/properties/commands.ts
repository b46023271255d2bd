import fc from 'fast-check';
import type { Exchange } from '../http.js';
import { micros } from '../money.js';
import { liveKeys, predictFunding, type Model, type Real } from './model.js';

class ModelMismatch extends Error {}

function expectAnswer(real: Real, ex: Exchange, status: number, code?: number): void {
  // Contract violations become this command's failure (and leave the shared context clean for shrinking).
  const before = real.ctx.violations.length;
  real.ctx.expectContract(ex);
  const found = real.ctx.violations.splice(before);
  const got = (ex.json as { code?: unknown } | undefined)?.code;
  const codeOk = code === undefined || got === code;
  if (ex.status !== status || !codeOk) {
    throw new ModelMismatch(
      `${ex.method} ${ex.path}: expected HTTP ${status}${code === undefined ? '' : ` code ${code}`}, got HTTP ${ex.status} ${ex.text.slice(0, 200)}`,
    );
  }
  if (found.length) throw new ModelMismatch(found.map((v) => v.message).join('; '));
}

const statusFor = (code: number) => (code === 0 ? 200 : code === 4211 || code === 4212 ? 409 : 400);

function keyFor(m: Model, withKey: boolean): string | undefined {
  return withKey ? `prop-${Date.now().toString(36)}-${m.nextKey++}` : undefined;
}

/** A write under `key`, or without one: the spec's rule that the key is optional is part of what the model checks. */
async function send(real: Real, path: string, body: Record<string, unknown>, key: string | undefined) {
  return real.ctx.post(path, body, key ? { headers: { 'Idempotency-Key': key } } : { idempotencyKey: null });
}

function remember(m: Model, key: string | undefined, path: string, body: Record<string, unknown>, ex: Exchange) {
  if (key && ex.status === 200) m.keyed.push({ key, path, body, status: ex.status, text: ex.text, atS: m.nowS });
}

class CreateCard implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly cents: number,
    readonly withKey: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.cards.length < 4;
  async run(m: Model, real: Real) {
    const amount = this.cents * 10_000;
    const predicted = predictFunding(m, amount, m.fees.openFeeMicros);
    const key = keyFor(m, this.withKey);
    const body = { amount: amount / 1_000_000, currency: 'USDT', binId: m.fees.binId };
    const ex = await send(real, '/v1/card/create', body, key);
    expectAnswer(real, ex, statusFor(predicted.code), predicted.code === 0 ? undefined : predicted.code);
    if (predicted.code !== 0) return;
    m.walletMicros -= amount;
    m.cards.push({
      id: (ex.json as { cardId: string }).cardId,
      status: 'ACTIVE',
      availableMicros: predicted.creditMicros,
      settlingMicros: 0,
    });
    remember(m, key, '/v1/card/create', body, ex);
  }
  toString = () => `create(${this.cents / 100}${this.withKey ? ', keyed' : ''})`;
}

class Deposit implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly card: number,
    readonly cents: number,
    readonly withKey: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.cards.length > 0;
  async run(m: Model, real: Real) {
    const card = m.cards[this.card % m.cards.length]!;
    const amount = this.cents * 10_000;
    const funding = predictFunding(m, amount, 0);
    const code = card.settlingMicros > 0 ? 4007 : funding.code;
    const key = keyFor(m, this.withKey);
    const body = { cardId: card.id, amount: amount / 1_000_000, currency: 'USDT' };
    const ex = await send(real, '/v1/card/deposit', body, key);
    expectAnswer(real, ex, statusFor(code), code);
    if (code !== 0) return;
    m.walletMicros -= amount;
    card.settlingMicros = funding.creditMicros;
    remember(m, key, '/v1/card/deposit', body, ex);
  }
  toString = () => `deposit(card ${this.card}, ${this.cents / 100}${this.withKey ? ', keyed' : ''})`;
}

class SetFrozen implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly card: number,
    readonly frozen: boolean,
    readonly withKey: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.cards.length > 0;
  async run(m: Model, real: Real) {
    const card = m.cards[this.card % m.cards.length]!;
    const code = card.settlingMicros > 0 ? 4007 : 0;
    const key = keyFor(m, this.withKey);
    const path = this.frozen ? '/v1/card/freeze' : '/v1/card/unfreeze';
    const ex = await send(real, path, { cardId: card.id }, key);
    expectAnswer(real, ex, statusFor(code), code);
    if (code !== 0) return;
    card.status = this.frozen ? 'FROZEN' : 'ACTIVE';
    remember(m, key, path, { cardId: card.id }, ex);
  }
  toString = () => `${this.frozen ? 'freeze' : 'unfreeze'}(card ${this.card}${this.withKey ? ', keyed' : ''})`;
}

/** A client retry: same key, same body, any time later. It must replay and change nothing. */
class RetrySame implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => liveKeys(m).length > 0;
  async run(m: Model, real: Real) {
    const live = liveKeys(m);
    const prior = live[this.pick % live.length]!;
    const ex = await send(real, prior.path, prior.body, prior.key);
    expectAnswer(real, ex, prior.status);
    if (ex.headers.get('idempotent-replayed') !== 'true' || ex.text !== prior.text) {
      throw new ModelMismatch(`retry of ${prior.path} with key ${prior.key} did not replay the stored answer`);
    }
  }
  toString = () => `retrySame(${this.pick})`;
}

/** A key reused with another body: 409 4211, nothing executes. */
class RetryDifferent implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => liveKeys(m).length > 0;
  async run(m: Model, real: Real) {
    const live = liveKeys(m);
    const prior = live[this.pick % live.length]!;
    const ex = await send(real, prior.path, { ...prior.body, alias: 'changed' }, prior.key);
    expectAnswer(real, ex, 409, 4211);
  }
  toString = () => `retryDifferent(${this.pick})`;
}

/** Moves the account clock past the top-up settlement delay. */
class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly seconds: number) {}
  check = () => true;
  async run(m: Model, real: Real) {
    const ex = await real.ctx.post('/sandbox/v1/clock', { advanceSeconds: this.seconds });
    expectAnswer(real, ex, 200);
    m.nowS += this.seconds;
    for (const c of m.cards) {
      c.availableMicros += c.settlingMicros;
      c.settlingMicros = 0;
    }
  }
  toString = () => `advance(${this.seconds}s)`;
}

export const commandArbitraries = [
  fc.tuple(fc.integer({ min: 0, max: 6000 }), fc.boolean()).map(([c, k]) => new CreateCard(c, k)),
  fc.tuple(fc.nat(3), fc.integer({ min: 0, max: 4000 }), fc.boolean()).map(([i, c, k]) => new Deposit(i, c, k)),
  fc.tuple(fc.nat(3), fc.boolean(), fc.boolean()).map(([i, f, k]) => new SetFrozen(i, f, k)),
  fc.nat(20).map((i) => new RetrySame(i)),
  fc.nat(20).map((i) => new RetryDifferent(i)),
  fc.integer({ min: 3, max: 90_000 }).map((s) => new Advance(s)),
];

/** After every command the balances the target shows must be the model's. */
export async function assertBalances(m: Model, real: Real): Promise<void> {
  const wallet = await real.ctx.post('/v1/wallet/assetList');
  const usdt = (wallet.json as { assetList: { currency: string; availableAmount: string }[] }).assetList.find(
    (a) => a.currency === 'USDT',
  );
  if (micros(usdt?.availableAmount) !== m.walletMicros) {
    throw new ModelMismatch(`wallet shows ${usdt?.availableAmount}, the model ${m.walletMicros / 1_000_000}`);
  }
  for (const card of m.cards) {
    const asset = await real.ctx.post('/v1/card/asset', { cardId: card.id });
    const shown = micros((asset.json as { availableAmount: string }).availableAmount);
    if (shown !== card.availableMicros) {
      throw new ModelMismatch(
        `card ${card.id} shows ${shown / 1_000_000}, the model ${card.availableMicros / 1_000_000}`,
      );
    }
  }
}
