import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { balance } from '../../src/domain/ledger/ledger.js';
import { creditCents } from '../helpers/fee-model.js';
import { createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';
import { micros, microsText } from '../helpers/money.js';
import { propertyRuns } from '../helpers/property-runs.js';

// Model-based test of the Idempotency-Key rules: random sequences of keyed creates, deposits and freezes,
// retries with the same or a different body, failures (3001, 8001, 4007), seeds and clock advances. The model
// predicts every status and code, and the balances must move exactly once per executed operation.

const DAY_S = 24 * 3600;
/** The default account's deposit fee rate. */
const RATE = '0.02';
const MIN_MICROS = 1_000_000;
const SETTLE_S = 3;

type Endpoint = 'card/create' | 'card/deposit' | 'card/freeze';

interface Model {
  nowS: number;
  walletMicros: number;
  /** Credits owed to cards: on the cards or still settling. */
  cardsMicros: number;
  cards: number;
  settlingUntilS: number;
  keys: Map<string, { endpoint: Endpoint; body: string; atS: number }>;
}

interface Real {
  sb: TestSandbox;
  acct: AccountHandle;
  cardId: string;
  /** The response text the first execution under each key answered. */
  responses: Map<string, string>;
}

class Keyed implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly endpoint: Endpoint,
    readonly key: string,
    readonly amount: number,
  ) {}
  check = () => true;

  private body(r: Real): Record<string, unknown> {
    if (this.endpoint === 'card/create') return { amount: this.amount, currency: 'USDT' };
    if (this.endpoint === 'card/deposit') return { cardId: r.cardId, amount: this.amount };
    return { cardId: r.cardId };
  }

  /** What the service must answer, applying the effect to the model when the operation executes. */
  private predict(m: Model, body: string): { status: number; code?: number; replay?: boolean } {
    const held = m.keys.get(this.key);
    if (held && m.nowS < held.atS + DAY_S) {
      if (held.endpoint !== this.endpoint || held.body !== body) return { status: 409, code: 4211 };
      return { status: 200, replay: true };
    }
    if (held) m.keys.delete(this.key);
    const a = micros(this.amount);
    if (this.endpoint !== 'card/create' && m.nowS < m.settlingUntilS) return { status: 400, code: 4007 };
    if (this.endpoint !== 'card/freeze') {
      if (a < MIN_MICROS) return { status: 400, code: 8001 };
      if (a > m.walletMicros) return { status: 400, code: 3001 };
      m.walletMicros -= a;
      m.cardsMicros += Number(creditCents(microsText(a), RATE, '0')) * 10_000;
      if (this.endpoint === 'card/create') m.cards += 1;
      else m.settlingUntilS = m.nowS + SETTLE_S;
    }
    m.keys.set(this.key, { endpoint: this.endpoint, body, atS: m.nowS });
    return { status: 200, replay: false };
  }

  async run(m: Model, r: Real): Promise<void> {
    const body = this.body(r);
    const canonical = JSON.stringify(body);
    const expected = this.predict(m, canonical);
    const res = await r.sb.post(r.acct.apiKey, `/v1/${this.endpoint}`, body, { 'Idempotency-Key': this.key });
    expect(res.status, JSON.stringify(res.body)).toBe(expected.status);
    expect(res.headers['idempotency-key']).toBe(this.key);
    if (expected.code !== undefined) expect(res.body.code).toBe(expected.code);
    if (expected.status === 200) {
      expect(res.headers['idempotent-replayed']).toBe(expected.replay ? 'true' : undefined);
      if (expected.replay) expect(res.text).toBe(r.responses.get(this.key));
      else r.responses.set(this.key, res.text);
    }
    await expectBalances(m, r);
  }
  toString = () => `${this.endpoint}[${this.key}](${this.amount})`;
}

class Seed implements fc.AsyncCommand<Model, Real> {
  constructor(readonly amount: number) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    expect((await r.sb.post(r.acct.apiKey, '/sandbox/v1/wallet/seed', { amount: this.amount })).status).toBe(200);
    m.walletMicros += micros(this.amount);
    await expectBalances(m, r);
  }
  toString = () => `seed(${this.amount})`;
}

class Advance implements fc.AsyncCommand<Model, Real> {
  constructor(readonly seconds: number) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    await r.sb.advance(r.acct.apiKey, this.seconds);
    m.nowS += this.seconds;
    await expectBalances(m, r);
  }
  toString = () => `advance(${this.seconds})`;
}

async function expectBalances(m: Model, r: Real): Promise<void> {
  const assets = await r.sb.post(r.acct.apiKey, '/v1/wallet/assetList', {});
  expect(micros(Number(assets.body.assetList[0].availableAmount))).toBe(m.walletMicros);
  const cards = (await r.sb.post(r.acct.apiKey, '/v1/card/list', {})).body.cardList as { availableBalance: number }[];
  expect(cards).toHaveLength(m.cards);
  const onCards = cards.reduce((s, c) => s + micros(c.availableBalance), 0);
  expect(onCards + balance(r.sb.deps, r.acct.accountId, 'settling')).toBe(m.cardsMicros);
}

const key = fc.constantFrom('k1', 'k2', 'k3');
const amount = fc.constantFrom(0.5, 5, 20, 60);
const commands = [
  fc
    .tuple(fc.constantFrom<Endpoint>('card/create', 'card/deposit', 'card/freeze'), key, amount)
    .map(([e, k, a]) => new Keyed(e, k, a)),
  amount.map((a) => new Seed(a)),
  fc.constantFrom(1, SETTLE_S, 3600, 12 * 3600, DAY_S - 1, DAY_S).map((s) => new Advance(s)),
];

describe('Idempotency model: every status predicted, balances move once per executed operation', () => {
  it('holds over random sequences of keyed requests, retries, failures and clock advances', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 20 }), async (cmds) => {
        const sb = createTestSandbox();
        try {
          const acct = await sb.account({ balance: 110 });
          await sb.post(acct.apiKey, '/sandbox/v1/clock', { mode: 'frozen' });
          const first = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
          const model: Model = {
            nowS: 0,
            walletMicros: 100_000_000,
            cardsMicros: 9_800_000,
            cards: 1,
            settlingUntilS: 0,
            keys: new Map(),
          };
          await fc.asyncModelRun(
            () => ({ model, real: { sb, acct, cardId: first.body.cardId, responses: new Map() } }),
            cmds,
          );
        } finally {
          await sb.close();
        }
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});
