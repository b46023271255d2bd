// Amounts live as integer micro-units (6 decimals, the precision of TRC20 USDT) from parsing to formatting.
// This module is the only place that converts between text and micro-units.

const MICROS_PER_UNIT = 1_000_000;
export const MICROS_PER_CENT = 10_000;
export const PPM = 1_000_000;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Parses a plain non-negative decimal string with at most `maxDecimals` places; null when it is not one. */
export function parseDecimal(text: string, maxDecimals = 6): number | null {
  const m = text.match(DECIMAL);
  if (!m) return null;
  const whole = m[1]!;
  const frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > maxDecimals) return null;
  const micros = Number(whole) * MICROS_PER_UNIT + Number(frac.padEnd(6, '0'));
  return Number.isSafeInteger(micros) ? micros : null;
}

/** Parses a decimal string that may carry a leading minus sign ("-12.5"); null when it is not one. */
export function parseSignedDecimal(text: string, maxDecimals = 6): number | null {
  const negative = text.startsWith('-');
  const micros = parseDecimal(negative ? text.slice(1) : text, maxDecimals);
  return micros === null ? null : negative ? -micros : micros;
}

/**
 * Reads a JSON number as micro-units. JSON.parse already made it a double; for a literal of at most
 * 15 significant digits (every valid amount) the shortest round-trip text of that double is the literal
 * itself, so we recover the decimal text and never do arithmetic on the float.
 */
export function microsFromJsonNumber(value: number, maxDecimals = 6): number | null {
  if (!Number.isFinite(value) || value < 0) return null;
  const text = String(value);
  if (text.includes('e')) return expandExponent(text, maxDecimals);
  return parseDecimal(text, maxDecimals);
}

function expandExponent(text: string, maxDecimals: number): number | null {
  const [mantissa, exp] = text.split('e') as [string, string];
  const e = Number(exp);
  const [int, frac = ''] = mantissa.split('.') as [string, string?];
  const digits = int + frac;
  const point = int.length + e;
  if (point <= 0) return parseDecimal('0.' + '0'.repeat(-point) + digits, maxDecimals);
  if (point >= digits.length) return parseDecimal(digits + '0'.repeat(point - digits.length), maxDecimals);
  return parseDecimal(digits.slice(0, point) + '.' + digits.slice(point), maxDecimals);
}

/** Decimal text without exponent or trailing zeros: "49", "10.5", "0.000001", "-12.3". */
export function formatMicros(micros: number): string {
  assertMicros(micros);
  const sign = micros < 0 ? '-' : '';
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_UNIT);
  const frac = String(abs % MICROS_PER_UNIT)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return sign + whole + (frac ? '.' + frac : '');
}

/** Decimal text with exactly two decimals, as bill/list shows amounts: "-12.50", "0.00". */
export function formatCents(micros: number): string {
  assertMicros(micros);
  const sign = micros < 0 ? '-' : '';
  const cents = Math.round(Math.abs(micros) / MICROS_PER_CENT);
  return sign + Math.floor(cents / 100) + '.' + String(cents % 100).padStart(2, '0');
}

/** A JSON number whose shortest text is exactly the decimal value (for fields the spec types as numbers). */
export function microsToJsonNumber(micros: number): number {
  return Number(formatMicros(micros));
}

/** A rate such as "0.02" as parts per million; null unless 0 <= rate < 1 with at most 6 decimals. */
export function parseRatePpm(value: unknown): number | null {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value;
  if (typeof text !== 'string') return null;
  const micros = text.includes('e') && typeof value === 'number' ? microsFromJsonNumber(value) : parseDecimal(text);
  if (micros === null || micros >= PPM) return null;
  return micros;
}

/** A rate in parts per million as decimal text: 20000 -> "0.02". */
export function formatPpm(ppm: number): string {
  return formatMicros(ppm);
}

export function assertMicros(micros: number): void {
  if (!Number.isSafeInteger(micros)) throw new Error(`amount is not an integer of micro-units: ${micros}`);
}
