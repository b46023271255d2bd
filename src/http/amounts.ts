import { microsFromJsonNumber, parseDecimal, parseRatePpm, parseSignedDecimal } from '../domain/kernel/money.js';

// Typed reads of a request body that readJsonObject has already checked against its contract
// (http/request-schema.ts: the schemas of contracts/ are the one source of what a body may hold, and of every 400
// message). These only convert: a value of the wrong shape here means a route read a field its schema does not
// declare, a programming error (500), never a partner's mistake. A value list types an enum field; its schema holds the
// same list, and a value one allows and the other not is a 500 that test/contracts/request-properties looks for.

export type Body = Record<string, unknown>;

function unchecked(field: string, expected: string): Error {
  return new Error(`request field ${field} is not ${expected}: its contract does not say what the route reads`);
}

export function requiredString(body: Body, field: string): string {
  const v = body[field];
  if (typeof v !== 'string') throw unchecked(field, 'a string');
  return v;
}

export function optionalString(body: Body, field: string): string | undefined {
  return body[field] === undefined ? undefined : requiredString(body, field);
}

/** A JSON number as integer micro-units (the schema bounds it and its decimal places). */
export function requiredAmount(body: Body, field: string, maxDecimals = 6): number {
  const v = body[field];
  const micros = typeof v === 'number' ? microsFromJsonNumber(v, maxDecimals) : null;
  if (micros === null) throw unchecked(field, `an amount with at most ${maxDecimals} decimal places`);
  return micros;
}

export function optionalAmount(body: Body, field: string, maxDecimals = 6): number | undefined {
  return body[field] === undefined ? undefined : requiredAmount(body, field, maxDecimals);
}

export function optionalEnum<T extends string>(body: Body, field: string, values: readonly T[]): T | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) throw unchecked(field, values.join('|'));
  return v as T;
}

export function requiredEnum<T extends string>(body: Body, field: string, values: readonly T[]): T {
  const v = optionalEnum(body, field, values);
  if (v === undefined) throw unchecked(field, values.join('|'));
  return v;
}

export function optionalInteger(body: Body, field: string): number | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw unchecked(field, 'an integer');
  return v;
}

export function requiredInteger(body: Body, field: string): number {
  const v = optionalInteger(body, field);
  if (v === undefined) throw unchecked(field, 'an integer');
  return v;
}

export function optionalStringList(body: Body, field: string): string[] | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw unchecked(field, 'a list of strings');
  return v as string[];
}

/** An object of integers by name (the schema names the keys and bounds the values). */
export function optionalIntegerMap(body: Body, field: string): Record<string, number> | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw unchecked(field, 'an object');
  for (const [k, n] of Object.entries(v)) if (!Number.isInteger(n)) throw unchecked(`${field}.${k}`, 'an integer');
  return v as Record<string, number>;
}

export function optionalBoolean(body: Body, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw unchecked(field, 'a boolean');
  return v;
}

/** A rate in [0, 1), as a decimal string or a JSON number, in parts per million. */
export function optionalRatePpm(body: Body, field: string): number | undefined {
  if (body[field] === undefined) return undefined;
  const ppm = parseRatePpm(body[field]);
  if (ppm === null) throw unchecked(field, 'a rate in [0, 1) with at most 6 decimal places');
  return ppm;
}

/** A decimal string ("100", "0.5") as integer micro-units. */
export function optionalDecimal(body: Body, field: string): number | undefined {
  const v = optionalString(body, field);
  if (v === undefined) return undefined;
  const micros = parseDecimal(v);
  if (micros === null) throw unchecked(field, 'a decimal string with at most 6 decimal places');
  return micros;
}

/** A decimal string that may be negative ("-12.5") as integer micro-units. */
export function requiredSignedDecimal(body: Body, field: string): number {
  const micros = parseSignedDecimal(requiredString(body, field));
  if (micros === null) throw unchecked(field, 'a signed decimal string with at most 6 decimal places');
  return micros;
}

/** A list of objects (the schema says what each holds). */
export function requiredObjectList(body: Body, field: string): Body[] {
  const v = body[field];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'object' && x !== null && !Array.isArray(x))) {
    throw unchecked(field, 'a list of objects');
  }
  return v as Body[];
}
