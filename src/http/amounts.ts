import { microsFromJsonNumber, parseDecimal, parseRatePpm, parseSignedDecimal } from '../domain/kernel/money.js';

// The amounts of a request body, as the domain counts them: the body step has already held the body to its
// contract (http/request-schema.ts: the schemas of contracts/ are the one source of what a body may hold, and of
// every 400 message), and the handler reads it typed by that same contract (router.ts, RequestBody). These only
// convert: a value they cannot take means a schema allows what the route cannot read, a programming error (500),
// never a partner's mistake; test/contracts/request-properties looks for one.

function unconvertible(what: string, value: unknown): Error {
  return new Error(`${JSON.stringify(value)} is not ${what}: its contract allows what the route cannot read`);
}

/** A JSON number as integer micro-units (the schema bounds it and its decimal places). */
export function microsOf(value: number, maxDecimals = 6): number {
  const micros = microsFromJsonNumber(value, maxDecimals);
  if (micros === null) throw unconvertible(`an amount with at most ${maxDecimals} decimal places`, value);
  return micros;
}

/** A rate in [0, 1), as a decimal string or a JSON number, in parts per million. */
export function ppmOf(value: string | number): number {
  const ppm = parseRatePpm(value);
  if (ppm === null) throw unconvertible('a rate in [0, 1) with at most 6 decimal places', value);
  return ppm;
}

/** A decimal string ("100", "0.5") as integer micro-units. */
export function microsOfDecimal(value: string): number {
  const micros = parseDecimal(value);
  if (micros === null) throw unconvertible('a decimal string with at most 6 decimal places', value);
  return micros;
}

/** A decimal string that may be negative ("-12.5") as integer micro-units. */
export function microsOfSignedDecimal(value: string): number {
  const micros = parseSignedDecimal(value);
  if (micros === null) throw unconvertible('a signed decimal string with at most 6 decimal places', value);
  return micros;
}
