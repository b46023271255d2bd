import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cardCredit } from '../../src/domain/fees.js';
import { sandboxTest } from '../helpers/fixtures.js';

const CENT = 10_000n;
const PPM = 1_000_000n;

const amountMicros = fc.integer({ min: 1, max: 1_000_000_000 * 1_000_000 });
const ratePpm = fc.integer({ min: 0, max: 999_999 });
const openFeeMicros = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 100_000_000 }));

describe('Fees: card_credit = floor_to_cent(amount - amount * deposit_fee_rate - open_fee)', () => {
  it('credit + fee == amount', () => {
    fc.assert(
      fc.property(amountMicros, ratePpm, openFeeMicros, (a, r, o) => {
        const { creditMicros, feeMicros } = cardCredit(a, r, o);
        expect(creditMicros + feeMicros).toBe(a);
      }),
      { numRuns: 2000 },
    );
  });

  it('credit is the exact net floored to the cent (a whole number of cents, within one cent below the net)', () => {
    fc.assert(
      fc.property(amountMicros, ratePpm, openFeeMicros, (a, r, o) => {
        const { creditMicros } = cardCredit(a, r, o);
        const credit = BigInt(creditMicros);
        expect(credit % CENT).toBe(0n);
        // Exact net scaled by PPM: amount * (1 - rate) - openFee, no rounding anywhere.
        const netScaled = BigInt(a) * (PPM - BigInt(r)) - BigInt(o) * PPM;
        expect(credit * PPM <= netScaled).toBe(true);
        expect(netScaled < (credit + CENT) * PPM).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('is monotone: more amount never gives less credit; a higher rate or open fee never gives more', () => {
    fc.assert(
      fc.property(
        amountMicros,
        amountMicros,
        ratePpm,
        ratePpm,
        openFeeMicros,
        openFeeMicros,
        (a1, a2, r1, r2, o1, o2) => {
          const [alo, ahi] = a1 <= a2 ? [a1, a2] : [a2, a1];
          const [rlo, rhi] = r1 <= r2 ? [r1, r2] : [r2, r1];
          const [olo, ohi] = o1 <= o2 ? [o1, o2] : [o2, o1];
          expect(cardCredit(alo, r1, o1).creditMicros).toBeLessThanOrEqual(cardCredit(ahi, r1, o1).creditMicros);
          expect(cardCredit(a1, rhi, o1).creditMicros).toBeLessThanOrEqual(cardCredit(a1, rlo, o1).creditMicros);
          expect(cardCredit(a1, r1, ohi).creditMicros).toBeLessThanOrEqual(cardCredit(a1, r1, olo).creditMicros);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('matches the spec examples: 50 at 2 percent gives 49, at 0 percent 50', () => {
    expect(cardCredit(50_000_000, 20_000, 0)).toEqual({ creditMicros: 49_000_000, feeMicros: 1_000_000 });
    expect(cardCredit(50_000_000, 0, 0)).toEqual({ creditMicros: 50_000_000, feeMicros: 0 });
  });
});

describe('Limits: 8001 below minimalDeposit or when the fee consumes the amount (through HTTP)', () => {
  sandboxTest.override({ accountOptions: { balance: 1_000_000 } });

  sandboxTest(
    'card/create fails with 8001 exactly when amount < minimalDeposit or credit <= 0, else credits the card exactly',
    async ({ sb, acct }) => {
      const cents = (n: number) => (n / 100).toFixed(2);
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 2_000_000 }), // amount in micro-units, up to 2
          fc.integer({ min: 0, max: 200 }), // minimalDeposit in cents
          fc.integer({ min: 0, max: 150 }), // open fee in cents
          fc.constantFrom('0', '0.02', '0.5', '0.999999'),
          async (amount, minCents, openCents, rate) => {
            await sb.admin('patch', `/admin/v1/accounts/${acct.accountId}`, { depositFeeRate: rate });
            const put = await sb.admin('put', '/admin/v1/bins/PROP-BIN', {
              bin: '411111',
              fee: { card: cents(openCents) },
              limit: { minimalDeposit: cents(minCents) },
            });
            expect(put.status).toBe(200);
            const res = await sb.post(acct.apiKey, '/v1/card/create', {
              amount: amount / 1_000_000,
              currency: 'USDT',
              binId: 'PROP-BIN',
            });
            const rppm = Math.round(Number(rate) * 1_000_000);
            const { creditMicros } = cardCredit(amount, rppm, openCents * 10_000);
            const too_small = amount < minCents * 10_000 || creditMicros <= 0;
            if (too_small) {
              expect(res.status).toBe(400);
              expect(res.body.code).toBe(8001);
            } else {
              expect(res.status, JSON.stringify(res.body)).toBe(200);
              const asset = await sb.post(acct.apiKey, '/v1/card/asset', { cardId: res.body.cardId });
              expect(Math.round(Number(asset.body.availableAmount) * 1_000_000)).toBe(creditMicros);
            }
          },
        ),
        { numRuns: 150 },
      );
    },
  );
});
