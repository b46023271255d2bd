import { microsFromJsonNumber, parseDecimal } from '../domain/money.js';

/** Micro-units of a decimal string or JSON number as the target wrote it; NaN when it is neither. */
export function micros(value: unknown): number {
  // The decimal text of the number, never float arithmetic (a figure with more than 6 places is NaN: not money).
  if (typeof value === 'number') return microsFromJsonNumber(value) ?? NaN;
  if (typeof value !== 'string') return NaN;
  return parseDecimal(value) ?? NaN;
}

/**
 * The spec's fee rule (a rate in parts per million, which is `micros()` of the rate's decimal string), written
 * here independently of the server's fee function so the harness can judge it:
 * credit = floor_to_cent(amount - amount * rate - openFee), computed exactly with big integers.
 */
export function expectedCredit(amountMicros: number, ratePpm: number, openFeeMicros: number): number {
  const a = BigInt(amountMicros);
  const scaled = a * 1_000_000n - a * BigInt(ratePpm) - BigInt(openFeeMicros) * 1_000_000n; // micro-units * 1e6
  const cents = scaled >= 0n ? scaled / 10_000_000_000n : -((-scaled + 9_999_999_999n) / 10_000_000_000n);
  return Number(cents * 10_000n);
}

export const fmt = (m: number) => (m / 1_000_000).toString();
