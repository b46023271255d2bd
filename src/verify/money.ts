// The harness reads money with a parser of its own: sharing the server's would let a parsing bug pass its own test.

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Micro-units of a decimal string or JSON number as the target wrote it; NaN when it is neither, or not money. */
export function micros(value: unknown): number {
  if (typeof value === 'number') return numberMicros(value);
  return typeof value === 'string' ? microsOfDecimal(value) : NaN;
}

/**
 * A balance: an amount, or one below zero written with a leading '-' (a card a clearing took below zero answers
 * `card/asset` so). Amounts a client sends are never signed, so only balances are read with this.
 */
export function balanceMicros(value: unknown): number {
  if (typeof value === 'string' && value.startsWith('-')) {
    const owed = micros(value.slice(1));
    return owed > 0 ? -owed : NaN;
  }
  if (typeof value === 'number' && value < 0) {
    const owed = micros(-value);
    return owed > 0 ? -owed : NaN;
  }
  return micros(value);
}

/** A non-negative decimal with at most 6 places (trailing zeros aside), exactly, with big integers. */
function microsOfDecimal(text: string): number {
  const m = DECIMAL.exec(text);
  if (!m) return NaN;
  const places = (m[2] ?? '').replace(/0+$/, '');
  if (places.length > 6) return NaN;
  const units = BigInt(m[1]!) * 1_000_000n + BigInt(places.padEnd(6, '0'));
  const n = Number(units);
  return Number.isSafeInteger(n) ? n : NaN;
}

/**
 * A JSON number: a literal of at most 15 significant digits (every amount the API can carry) is recovered exactly by
 * rounding its double to 15 significant digits; that text, its padding zeros dropped, is then the amount.
 */
function numberMicros(value: number): number {
  if (!Number.isFinite(value) || value < 0) return NaN;
  const text = value.toPrecision(15);
  return text.includes('e') ? NaN : microsOfDecimal(text);
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
