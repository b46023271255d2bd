// Money in the tests, worked on its decimal text as a person would on paper: an amount is an integer of micro-units
// (six decimal places), and no float arithmetic touches one, so a test's sum is exact whatever the server's is.

const DECIMAL = /^(-?)(\d+)(?:\.(\d{1,6}))?$/;

/** Decimal text or a JSON number ("12.5", -30, "0.000001") as integer micro-units, read from its decimal text. */
export function micros(value: string | number): number {
  const text = String(value);
  const m = DECIMAL.exec(text);
  if (!m) throw new Error(`${text}: not a decimal of at most six places`);
  const v = Number(m[2]) * 1_000_000 + Number((m[3] ?? '').padEnd(6, '0'));
  return m[1] ? 0 - v : v; // 0 - 0 is 0, not -0
}

/** Micro-units as the decimal string the API takes ("1.500000" for 1,500,000). */
export function microsText(amountMicros: number): string {
  const m = BigInt(Math.abs(amountMicros));
  const sign = amountMicros < 0 ? '-' : '';
  return `${sign}${m / 1_000_000n}.${String(m % 1_000_000n).padStart(6, '0')}`;
}
