import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { balance } from '../../src/domain/ledger/ledger.js';
import { expectConserved } from '../helpers/core.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { micros } from '../helpers/money.js';
import { propertyRuns } from '../helpers/property-runs.js';

// docs/design.md section 1, checked after every step of a random operation sequence:
// seeded == wallet available + top-ups still settling + sum(card available + card frozen) + fees
// (no spend, refund or chain deposit in these sequences: those belong to the simulation module).

type Op =
  | { op: 'create'; amount: number }
  | { op: 'deposit'; card: number; amount: number }
  | { op: 'freeze' | 'unfreeze' | 'cancel'; card: number }
  | { op: 'seed'; amount: number }
  | { op: 'clock'; seconds: number }
  | { op: 'reset'; balance: number };

const amount = fc.oneof(
  fc.integer({ min: 1, max: 40 }),
  fc.integer({ min: 1, max: 40_000_000 }).map((m) => m / 1_000_000),
  fc.constantFrom(0.5, 1, 1.01, 99.99),
);
const card = fc.nat({ max: 5 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('create' as const), amount }),
  fc.record({ op: fc.constant('deposit' as const), card, amount }),
  fc.record({ op: fc.constantFrom('freeze' as const, 'unfreeze' as const, 'cancel' as const), card }),
  fc.record({ op: fc.constant('seed' as const), amount }),
  fc.record({ op: fc.constant('clock' as const), seconds: fc.constantFrom(0, 1, 2, 3, 5, 60) }),
  fc.record({ op: fc.constant('reset' as const), balance: fc.constantFrom(0, 25) }),
);

async function partnerView(sb: TestSandbox, key: string, accountId: string) {
  const wallet = micros((await sb.post(key, '/v1/wallet/assetList', {})).body.assetList[0].availableAmount);
  const cards = (await sb.post(key, '/v1/card/list', {})).body.cardList as {
    availableBalance: number;
    frozenAmount: number;
  }[];
  const onCards = cards.reduce((s, c) => s + micros(c.availableBalance) + micros(c.frozenAmount), 0);
  const settling = await balance(sb.deps, accountId, 'settling');
  const fees = await balance(sb.deps, accountId, 'fee');
  return { wallet, onCards, settling, fees };
}

describe('Conservation of money (docs/design.md section 1) over random create/deposit/freeze/cancel/seed/clock/reset sequences', () => {
  it('seeded == wallet + settling + cards + fees after every step, and the double-entry ledger balances', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 200 }),
        fc.array(op, { minLength: 1, maxLength: 20 }),
        async (initial, ops) => {
          const sb = createTestSandbox();
          try {
            const acct = await sb.account({ balance: initial });
            let seeded = micros(initial);
            const cardIds: string[] = [];
            for (const o of ops) {
              const cardId = 'card' in o ? (cardIds[o.card % Math.max(1, cardIds.length)] ?? 'none') : '';
              let res;
              switch (o.op) {
                case 'create':
                  res = await sb.post(acct.apiKey, '/v1/card/create', { amount: o.amount, currency: 'USDT' });
                  if (res.status === 200) cardIds.push(res.body.cardId);
                  break;
                case 'deposit':
                  res = await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: o.amount });
                  break;
                case 'freeze':
                case 'unfreeze':
                case 'cancel':
                  res = await sb.post(acct.apiKey, `/v1/card/${o.op}`, { cardId });
                  break;
                case 'seed':
                  res = await sb.post(acct.apiKey, '/sandbox/v1/wallet/seed', { amount: o.amount });
                  if (res.status === 200) seeded += micros(o.amount);
                  break;
                case 'clock':
                  res = await sb.post(acct.apiKey, '/sandbox/v1/clock', { advanceSeconds: o.seconds });
                  break;
                case 'reset':
                  // A reset wipes the account's money and cards: the books start again from its balance.
                  res = await sb.post(acct.apiKey, '/sandbox/v1/reset', { balance: o.balance || undefined });
                  seeded = micros(o.balance);
                  cardIds.length = 0;
                  break;
              }
              // Bad input is a 4xx, never a 500.
              expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
              const v = await partnerView(sb, acct.apiKey, acct.accountId);
              expect(v.wallet + v.settling + v.onCards + v.fees).toBe(seeded);
              expect(v.wallet).toBeGreaterThanOrEqual(0);
              await expectConserved(sb.deps, acct.accountId);
            }
          } finally {
            await sb.close();
          }
        },
      ),
      { numRuns: propertyRuns(80) },
    );
  });
});
