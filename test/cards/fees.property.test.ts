import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cardCredit } from '../../src/domain/cards/fees.js';
import { creditCents } from '../helpers/fee-model.js';
import { sandboxTest } from '../helpers/fixtures.js';
import { micros, microsText } from '../helpers/money.js';
import { propertyRuns } from '../helpers/property-runs.js';

const amountMicros = fc.integer({ min: 1, max: 1_000_000_000 * 1_000_000 });
const ratePpm = fc.integer({ min: 0, max: 999_999 });
const openFeeMicros = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 100_000_000 }));

// Worked by hand (and checked with Python's decimal module): amount, deposit fee rate, open fee -> card credit.
const WORKED: [amount: string, rate: string, openFee: string, credit: string][] = [
  ['50', '0.02', '0', '49.00'], // the spec's example
  ['50', '0', '0', '50.00'],
  ['100', '0.02', '1', '97.00'], // 100 - 2 - 1
  ['10.01', '0.02', '0', '9.80'], // 10.01 - 0.2002 = 9.8098
  ['33.333333', '0.03', '0.5', '31.83'], // 33.333333 - 0.99999999 - 0.5 = 31.83333301
  ['7.77', '0.123456', '0.01', '6.80'], // 7.77 - 0.95925312 - 0.01 = 6.80074688
  ['999.999999', '0.000001', '0.99', '999.00'], // 999.999999 - 0.000999999999 - 0.99 = 999.008999000001
  ['2.5', '0.02', '2.44', '0.01'], // 2.5 - 0.05 - 2.44
  ['1000000000', '0.015', '0', '985000000.00'],
  ['0.01', '0.5', '0', '0.00'], // 0.005: nothing left for the card
  ['1', '0.999999', '0', '0.00'], // 0.000001
  ['0.019999', '0', '0.01', '0.00'], // 0.009999
  ['2.5', '0.02', '2.45', '0.00'], // exactly zero
  ['1', '0.5', '1', '-0.50'], // the fees exceed the amount
];

describe('Fees: card_credit = floor_to_cent(amount - amount * deposit_fee_rate - open_fee)', () => {
  it.each(WORKED)('%s at rate %s with open fee %s credits %s (worked by hand)', (amount, rate, openFee, credit) => {
    const cents = Math.round(Number(credit) * 100);
    expect(Number(creditCents(amount, rate, openFee))).toBe(cents);
    expect(cardCredit(micros(amount), micros(rate), micros(openFee)).creditMicros).toBe(cents * 10_000);
  });

  it('credits what exact decimal arithmetic gives, floored to the cent, for any amount, rate and open fee', () => {
    fc.assert(
      fc.property(amountMicros, ratePpm, openFeeMicros, (a, r, o) => {
        const expected = creditCents(microsText(a), microsText(r), microsText(o));
        expect(cardCredit(a, r, o).creditMicros).toBe(Number(expected) * 10_000);
      }),
      { numRuns: propertyRuns(2000) },
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
      { numRuns: propertyRuns(2000) },
    );
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
            const creditMicros = Number(creditCents(microsText(amount), rate, cents(openCents))) * 10_000;
            const too_small = amount < minCents * 10_000 || creditMicros <= 0;
            if (too_small) {
              expect(res.status).toBe(400);
              expect(res.body.code).toBe(8001);
            } else {
              expect(res.status, JSON.stringify(res.body)).toBe(200);
              const asset = await sb.post(acct.apiKey, '/v1/card/asset', { cardId: res.body.cardId });
              expect(micros(asset.body.availableAmount)).toBe(creditMicros);
            }
          },
        ),
        { numRuns: propertyRuns(150) },
      );
    },
  );
});
