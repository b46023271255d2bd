import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectConserved, putWebhookConfig, sim } from '../helpers/core.js';
import { expectLedgerAgrees, PartnerLedger } from '../helpers/partner-ledger.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { micros } from '../helpers/money.js';
import { propertyRuns, propertyTimeoutMs } from '../helpers/property-runs.js';

// docs/design.md section 15: a partner's ledger built from the delivered webhook events alone, plus its own funding,
// agrees with card/asset for every card and with bill/list, at every moment. Over random sequences of every network
// message (authorisations in three currencies, forced declines, verifications of 0, increments, clearings exact, for
// less, for more and in parts, reversals whole and partial, force posts, refunds of purchases and with none), card
// deposits, freezes, cancellations and clock moves (expiries, settlements), after every step:
// - the events delivered to a real receiver, folded by test/helpers/partner-ledger.ts, equal card/asset and bill/list;
// - the account's ledger sums to zero and every balance is the sum of its transfers;
// - conservation as the partner sees it: seeded = wallet + top-ups settling + cards + cleared spend - refunds.

const SEED = 2_000;
const CARD = 150;

type Op =
  | { op: 'authorize'; card: number; cents: number; currency: 'USD' | 'EUR' | 'JPY'; decline: boolean }
  | { op: 'increment'; txn: number; cents: number }
  | { op: 'clear'; txn: number; how: 'hold' | 'less' | 'more' | 'part'; cents: number }
  | { op: 'reverse'; txn: number; cents: number | null }
  | { op: 'forcePost'; card: number; cents: number; currency: 'USD' | 'GBP' }
  | { op: 'refund'; txn: number; cents: number | null }
  | { op: 'goodwill'; card: number; cents: number }
  | { op: 'topup'; card: number; cents: number }
  | { op: 'create'; cents: number }
  | { op: 'freeze' | 'unfreeze' | 'cancel'; card: number }
  | { op: 'clock'; seconds: number };

const card = fc.nat(3);
/**
 * Which transaction a follow-up message names: counted back from the newest of those the partner's ledger shows in
 * the state the message needs (PENDING for an increment, clearing or reversal; a CLEARED purchase for a refund),
 * or, one time in eight, of all transactions, so messages on a transaction in the wrong state are sent too.
 */
const txn = fc.nat(39);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('authorize' as const),
      card,
      cents: fc.oneof(
        { weight: 1, arbitrary: fc.constant(0) },
        { weight: 9, arbitrary: fc.integer({ min: 1, max: 9_000 }) },
      ),
      currency: fc.constantFrom('USD' as const, 'EUR' as const, 'JPY' as const),
      decline: fc.nat(9).map((n) => n < 2),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('increment' as const), txn, cents: fc.integer({ min: 1, max: 6_000 }) }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('clear' as const),
      txn,
      how: fc.constantFrom('hold' as const, 'less' as const, 'more' as const, 'part' as const),
      cents: fc.integer({ min: 1, max: 8_000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('reverse' as const),
      txn,
      cents: fc.option(fc.integer({ min: 1, max: 8_000 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('forcePost' as const),
      card,
      cents: fc.integer({ min: 1, max: 8_000 }),
      currency: fc.constantFrom('USD' as const, 'GBP' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('refund' as const),
      txn,
      cents: fc.option(fc.integer({ min: 1, max: 8_000 })),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('goodwill' as const), card, cents: fc.integer({ min: 1, max: 5_000 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant('topup' as const), card, cents: fc.integer({ min: 100, max: 20_000 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('create' as const), cents: fc.integer({ min: 100, max: 20_000 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constantFrom('freeze' as const, 'unfreeze' as const, 'cancel' as const), card }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('clock' as const),
      seconds: fc.constantFrom(1, 3, 5, 3_600, 86_400, 7 * 86_400),
    }),
  },
);

interface Model {
  nowS: number;
  seededMicros: number;
  cards: string[];
  txns: string[];
  topups: { card: string; micros: number; settlesAtS: number; booked: boolean }[];
}

/** One step through the partner and simulation APIs; the model learns what the partner itself did. */
async function step(sb: TestSandbox, key: string, m: Model, ledger: PartnerLedger, o: Op) {
  const cardOf = (i: number) => m.cards[i % m.cards.length]!;
  const txnOf = (i: number, wanted = ledger.idsWith('PENDING')) => {
    const from = i % 8 === 0 || wanted.length === 0 ? m.txns : wanted;
    return from[from.length - 1 - (Math.floor(i / 8) % Math.max(1, from.length))] ?? 'txn_none';
  };
  const amount = (cents: number) => cents / 100;
  switch (o.op) {
    case 'authorize': {
      const body = { cardId: cardOf(o.card), amount: amount(o.cents), currency: o.currency };
      const res = await sim(sb, key, 'card/authorize', o.decline ? { ...body, declineReason: 'DO_NOT_HONOR' } : body);
      if (res.status === 200) m.txns.push(res.body.transactionId);
      return res;
    }
    case 'increment':
      return sim(sb, key, 'transaction/increment', { transactionId: txnOf(o.txn), amount: amount(o.cents) });
    case 'clear': {
      const transactionId = txnOf(o.txn);
      // Amounts relative to the hold as the partner's ledger knows it: a tenth of it up to it all, or a tip above it.
      const holdCents = Math.round((ledger.billOf(transactionId) ?? 0) / 10_000);
      const part = Math.max(1, Math.round((holdCents * (o.cents % 10)) / 10));
      const body =
        o.how === 'hold'
          ? { transactionId }
          : o.how === 'part'
            ? { transactionId, amount: amount(part), final: false }
            : { transactionId, amount: amount(o.how === 'less' ? part : holdCents + o.cents) };
      const res = await sim(sb, key, 'transaction/clear', body);
      if (res.status === 200 && o.how === 'part') m.txns.push(res.body.transactionId);
      return res;
    }
    case 'reverse':
      return sim(sb, key, 'transaction/reverse', {
        transactionId: txnOf(o.txn),
        ...(o.cents === null ? {} : { amount: amount(o.cents) }),
      });
    case 'forcePost': {
      const res = await sim(sb, key, 'transaction/force-post', {
        cardId: cardOf(o.card),
        amount: amount(o.cents),
        currency: o.currency,
      });
      if (res.status === 200) m.txns.push(res.body.transactionId);
      return res;
    }
    case 'refund': {
      const res = await sim(sb, key, 'transaction/refund', {
        transactionId: txnOf(o.txn, ledger.idsWith('CLEARED', 'SPEND')),
        ...(o.cents === null ? {} : { amount: amount(o.cents) }),
      });
      if (res.status === 200) m.txns.push(res.body.transactionId);
      return res;
    }
    case 'goodwill': {
      const res = await sim(sb, key, 'transaction/refund', { cardId: cardOf(o.card), amount: amount(o.cents) });
      if (res.status === 200) m.txns.push(res.body.transactionId);
      return res;
    }
    case 'topup': {
      const cardId = cardOf(o.card);
      const res = await sb.post(key, '/v1/card/deposit', { cardId, amount: amount(o.cents) });
      if (res.status === 200)
        m.topups.push({ card: cardId, micros: o.cents * 10_000, settlesAtS: m.nowS + 3, booked: false });
      return res;
    }
    case 'create': {
      if (m.cards.length >= 4) return { status: 200, body: {} };
      const res = await sb.post(key, '/v1/card/create', { amount: amount(o.cents), currency: 'USDT' });
      if (res.status === 200) {
        m.cards.push(res.body.cardId);
        ledger.fund(res.body.cardId, o.cents * 10_000);
      }
      return res;
    }
    case 'cancel': {
      const cardId = cardOf(o.card);
      // The partner's own ledger knows what its cancel costs: a card in debt has its debt paid from the wallet.
      const debt = Math.max(0, -ledger.asset(cardId).available);
      const res = await sb.post(key, '/v1/card/cancel', { cardId });
      if (res.status === 200) ledger.fund(cardId, debt);
      return res;
    }
    case 'freeze':
    case 'unfreeze':
      return sb.post(key, `/v1/card/${o.op}`, { cardId: cardOf(o.card) });
    case 'clock':
      await sb.advance(key, o.seconds);
      m.nowS += o.seconds;
      return { status: 200, body: {} };
  }
}

async function check(sb: TestSandbox, key: string, accountId: string, m: Model, ledger: PartnerLedger) {
  for (const t of m.topups) {
    if (!t.booked && t.settlesAtS <= m.nowS) {
      ledger.fund(t.card, t.micros);
      t.booked = true;
    }
  }
  await expectLedgerAgrees(sb, key, ledger, m.cards);
  await expectConserved(sb.deps, accountId);
  const wallet = micros((await sb.post(key, '/v1/wallet/assetList', {})).body.assetList[0].availableAmount);
  const settling = m.topups.filter((t) => !t.booked).reduce((s, t) => s + t.micros, 0);
  const onCards = m.cards.reduce((s, c) => s + ledger.asset(c).available + ledger.asset(c).frozen, 0);
  expect(wallet + settling + onCards + ledger.spentLessRefunds()).toBe(m.seededMicros);
}

describe('the ledger a partner folds from the delivered events (docs/design.md section 15)', () => {
  let rx: Receiver;

  it(
    'equals card/asset for every card and bill/list after every step of random network messages, deposits, freezes and clock moves; the ledger sums to zero',
    async () => {
      rx = await startReceiver();
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(opArb, { minLength: 10, maxLength: 40 }), async (ops) => {
            const sb = createTestSandbox();
            rx.received.length = 0;
            try {
              const acct = await sb.account({ balance: SEED, depositFeeRate: '0' });
              const key = acct.apiKey;
              expect((await putWebhookConfig(sb, key, { url: rx.url })).status).toBe(200);
              const ledger = new PartnerLedger();
              const m: Model = { nowS: 0, seededMicros: SEED * 1_000_000, cards: [], txns: [], topups: [] };
              for (let i = 0; i < 2; i++) await step(sb, key, m, ledger, { op: 'create', cents: CARD * 100 });
              for (const o of ops) {
                const res = await step(sb, key, m, ledger, o);
                expect(res.status, `${JSON.stringify(o)} -> ${JSON.stringify(res.body)}`).toBeLessThan(500);
                // Every event of the step reaches the receiver before the partner looks (a clock advance of 0 delivers).
                await sb.advance(key, 0);
                ledger.fold(rx.received.map((r) => r.body));
                await check(sb, key, acct.accountId, m, ledger);
              }
            } finally {
              await sb.close();
            }
          }),
          { numRuns: propertyRuns(Number(process.env.LEDGER_FOLD_RUNS ?? 40)) },
        );
      } finally {
        await rx.close();
      }
    },
    propertyTimeoutMs(120_000),
  );
});
