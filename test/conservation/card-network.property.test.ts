import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectConserved } from '../helpers/core.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { newCard, sim } from '../helpers/core.js';
import { micros } from '../helpers/money.js';
import { propertyRuns } from '../helpers/property-runs.js';

// Over random sequences of authorize / clear / reverse / refund / top-up / clock steps, after every step:
// - each card's available + frozen equals what was funded (settled) minus cleared spend plus refunds, and its
//   frozen amount equals its PENDING holds, all read through the partner API;
// - conservation (docs/design.md section 1): seeded == wallet available + top-ups still settling
//   + sum(card available + frozen) + fees (0 here) + cleared spend - refunds;
// - no refund exceeds its clearing: the server accepts a refund exactly when the model says it fits.

const SEED_MICROS = 1000_000_000;
const CARD_MICROS = 200_000_000;

type Op =
  | { op: 'authorize'; card: number; cents: number; currency: 'USD' | 'EUR' | 'JPY' }
  | { op: 'clear'; txn: number; cents: number | null }
  | { op: 'reverse'; txn: number }
  | { op: 'refund'; txn: number; amount: 'rest' | 'half' | 'restPlusCent' | number }
  | { op: 'topup'; card: number; cents: number }
  | { op: 'clock'; seconds: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('authorize' as const),
      card: fc.nat(1),
      cents: fc.integer({ min: 0, max: 15_000 }),
      currency: fc.constantFrom('USD' as const, 'EUR' as const, 'JPY' as const),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('clear' as const),
      txn: fc.nat(40),
      cents: fc.option(fc.integer({ min: 1, max: 30_000 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reverse' as const), txn: fc.nat(40) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('refund' as const),
      txn: fc.nat(40),
      amount: fc.oneof(
        fc.constantFrom('rest' as const, 'half' as const, 'restPlusCent' as const),
        fc.integer({ min: 1, max: 15_000 }),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('topup' as const),
      card: fc.nat(1),
      cents: fc.integer({ min: 100, max: 30_000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('clock' as const), seconds: fc.constantFrom(1, 3, 60, 86_400, 7 * 86_400) }),
  },
);

interface ModelTxn {
  id: string;
  billMicros: number;
  /** -1 until the purchase is cleared. */
  clearedMicros: number;
  refundedMicros: number;
}

interface Model {
  nowS: number;
  cards: string[];
  txns: ModelTxn[];
  topups: { card: string; micros: number; settlesAtS: number }[];
}

async function step(sb: TestSandbox, key: string, m: Model, o: Op): Promise<void> {
  const pick = (i: number) => (m.txns.length ? m.txns[i % m.txns.length] : undefined);
  switch (o.op) {
    case 'authorize': {
      const res = await sim(sb, key, 'card/authorize', {
        cardId: m.cards[o.card],
        amount: o.cents / 100,
        currency: o.currency,
      });
      expect(res.status).toBe(200);
      const bill = micros(String(res.body.billAmount));
      m.txns.push({
        id: res.body.transactionId,
        billMicros: bill,
        clearedMicros: res.body.status === 'CLEARED' ? 0 : -1,
        refundedMicros: 0,
      });
      return;
    }
    case 'clear': {
      const t = pick(o.txn);
      if (!t) return;
      const res = await sim(sb, key, 'transaction/clear', {
        transactionId: t.id,
        ...(o.cents ? { amount: o.cents / 100 } : {}),
      });
      if (res.status === 200) t.clearedMicros = o.cents ? o.cents * 10_000 : t.billMicros;
      return;
    }
    case 'reverse': {
      const t = pick(o.txn);
      if (t) await sim(sb, key, 'transaction/reverse', { transactionId: t.id });
      return;
    }
    case 'refund': {
      const t = pick(o.txn);
      if (!t) return;
      const remaining = t.clearedMicros - t.refundedMicros;
      const CENT = 10_000;
      const asked =
        o.amount === 'rest'
          ? null
          : o.amount === 'half'
            ? Math.max(CENT, Math.floor(remaining / 2 / CENT) * CENT)
            : o.amount === 'restPlusCent'
              ? Math.max(0, remaining) + CENT
              : o.amount * CENT;
      const res = await sim(sb, key, 'transaction/refund', {
        transactionId: t.id,
        ...(asked !== null ? { amount: asked / 1_000_000 } : {}),
      });
      // Accepted exactly when the purchase is cleared and the refund fits what remains of the clearing.
      const fits = t.clearedMicros >= 0 && remaining > 0 && (asked === null || asked <= remaining);
      expect(res.status, JSON.stringify(res.body)).toBe(fits ? 200 : 400);
      if (res.status === 200) t.refundedMicros += asked ?? remaining;
      expect(t.refundedMicros).toBeLessThanOrEqual(Math.max(0, t.clearedMicros));
      return;
    }
    case 'topup': {
      const res = await sb.post(key, '/v1/card/deposit', { cardId: m.cards[o.card], amount: o.cents / 100 });
      if (res.status === 200)
        m.topups.push({ card: m.cards[o.card]!, micros: o.cents * 10_000, settlesAtS: m.nowS + 3 });
      return;
    }
    case 'clock':
      await sb.advance(key, o.seconds);
      m.nowS += o.seconds;
  }
}

/** Reads each transaction's status and the clearing amounts through the partner API, then checks the invariants. */
async function check(sb: TestSandbox, key: string, accountId: string, m: Model): Promise<void> {
  const wallet = micros((await sb.post(key, '/v1/wallet/assetList', {})).body.assetList[0].availableAmount);
  const settling = m.topups.filter((t) => t.settlesAtS > m.nowS).reduce((s, t) => s + t.micros, 0);
  let cardsTotal = 0;
  let clearedMinusRefunds = 0;
  for (const cardId of m.cards) {
    const asset = (await sb.post(key, '/v1/card/asset', { cardId })).body;
    const rows = (await sb.post(key, '/v1/bill/list', { cardId, pageSize: 100 })).body.transactions as {
      amount: string;
      status: string;
    }[];
    const spent = rows.filter((r) => r.status === 'COMPLETED').reduce((s, r) => s - micros(r.amount), 0);
    const refunded = rows
      .filter((r) => r.status === 'REVERTED' && !r.amount.startsWith('-'))
      .reduce((s, r) => s + micros(r.amount), 0);
    const held = rows.filter((r) => r.status === 'PENDING').reduce((s, r) => s - micros(r.amount), 0);
    const funded =
      CARD_MICROS +
      m.topups.filter((t) => t.card === cardId && t.settlesAtS <= m.nowS).reduce((s, t) => s + t.micros, 0);
    const available = micros(asset.availableAmount);
    const frozen = micros(asset.frozenAmount);
    expect(frozen).toBe(held);
    expect(available + frozen).toBe(funded - spent + refunded);
    expect(frozen).toBeGreaterThanOrEqual(0);
    cardsTotal += available + frozen;
    clearedMinusRefunds += spent - refunded;
  }
  expect(SEED_MICROS).toBe(wallet + settling + cardsTotal + clearedMinusRefunds);
  await expectConserved(sb.deps, accountId);
}

describe('conservation property', () => {
  it('holds card available + frozen and conservation after every step, and no refund exceeds its clearing', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 25 }), async (ops) => {
        const sb = createTestSandbox();
        try {
          const acct = await sb.account({ balance: SEED_MICROS / 1_000_000, depositFeeRate: '0' });
          const key = acct.apiKey;
          const m: Model = { nowS: 0, cards: [], txns: [], topups: [] };
          for (let i = 0; i < 2; i++) m.cards.push(await newCard(sb, key, CARD_MICROS / 1_000_000));
          for (const o of ops) {
            await step(sb, key, m, o);
            await check(sb, key, acct.accountId, m);
          }
        } finally {
          await sb.close();
        }
      }),
      { numRuns: propertyRuns(25) },
    );
  });
});
