import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { microsFromJsonNumber, parseDecimal } from '../../src/domain/kernel/money.js';
import { balanceMicros, micros } from '../../src/verify/money.js';
import { propertyRuns } from '../helpers/property-runs.js';

// The harness parses money with its own code (it must not share the server's parser); the two must still agree on
// every amount a target can write, and both refuse what is not money.

const amountText = fc
  .tuple(
    fc.bigInt({ min: 0n, max: 9_000_000_000n }),
    fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 9 }),
  )
  .map(([whole, places]) => (places === '' ? String(whole) : `${whole}.${places}`));

describe("verify's money parser, written apart from the server's", () => {
  it('agrees with the server on every decimal string (up to 9 places, more than 6 are refused)', () => {
    fc.assert(
      fc.property(amountText, (text) => {
        expect(micros(text)).toEqual(parseDecimal(text) ?? NaN);
      }),
      { numRuns: propertyRuns(2_000) },
    );
  });

  it('agrees with the server on every JSON number of at most 15 significant digits (an amount has at most 15)', () => {
    const significant = (text: string) => text.replace('.', '').replace(/^0+/, '').length;
    fc.assert(
      fc.property(
        amountText.filter((text) => significant(text) <= 15),
        (text) => {
          const value = JSON.parse(text) as number;
          expect(micros(value)).toEqual(microsFromJsonNumber(value) ?? NaN);
        },
      ),
      { numRuns: propertyRuns(2_000) },
    );
  });

  it('refuses what is not money', () => {
    for (const value of [
      '',
      '-1',
      '1e3',
      '0x10',
      ' 1',
      '1.',
      '.5',
      null,
      undefined,
      true,
      {},
      -1,
      NaN,
      Infinity,
      1e-7,
    ]) {
      expect(micros(value)).toBeNaN();
    }
    expect(micros('12.500000')).toBe(12_500_000);
    expect(micros(0.000001)).toBe(1);
    expect(micros(1e3)).toBe(1_000_000_000);
  });
});

describe("verify's balances: a card below zero", () => {
  it('reads a balance below zero as the negated amount, string or number, and refuses "-0", "--1" and "-"', () => {
    fc.assert(
      fc.property(amountText, (text) => {
        const amount = micros(text);
        if (amount === 0 || Number.isNaN(amount)) return;
        expect(balanceMicros(`-${text}`)).toBe(-amount);
        expect(balanceMicros(text)).toBe(amount);
      }),
      { numRuns: propertyRuns(1_000) },
    );
    expect(balanceMicros(-4.5)).toBe(-4_500_000);
    for (const value of ['-0', '-0.00', '--1', '-', '- 1', '-1e3', -Infinity]) {
      expect(balanceMicros(value), String(value)).toBeNaN();
    }
  });
});
