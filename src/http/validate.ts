import { MICROS_PER_UNIT, microsFromJsonNumber } from '../domain/money.js';
import { invalidField } from '../domain/errors.js';

// Field readers for request bodies: each names the field in its message and throws a 400 before anything runs.

export type Body = Record<string, unknown>;

const MAX_AMOUNT_MICROS = 1_000_000_000 * MICROS_PER_UNIT;

export function requiredString(body: Body, field: string, maxLength = 256): string {
  const v = body[field];
  if (v === undefined || v === null) throw invalidField(`${field} is required`);
  if (typeof v !== 'string') throw invalidField(`${field} must be a string`);
  if (v.length === 0) throw invalidField(`${field} must not be empty`);
  if (v.length > maxLength) throw invalidField(`${field} must be at most ${maxLength} characters`);
  return v;
}

/** Absent is fine; null is refused (the sandbox is strict), saying so without calling an optional field required. */
export function optionalString(body: Body, field: string, maxLength = 256): string | undefined {
  if (body[field] === null) throw invalidField(`${field} must be a string, or left out`);
  return body[field] === undefined ? undefined : requiredString(body, field, maxLength);
}

/** A JSON number, finite, > 0, at most `maxDecimals` places, at most 1,000,000,000: as integer micro-units. */
export function requiredAmount(body: Body, field: string, maxDecimals = 6): number {
  const v = body[field];
  if (v === undefined || v === null) throw invalidField(`${field} is required`);
  if (typeof v !== 'number') throw invalidField(`${field} must be a JSON number`);
  const micros = microsFromJsonNumber(v, maxDecimals);
  if (micros === null || micros <= 0 || micros > MAX_AMOUNT_MICROS) {
    throw invalidField(
      `${field} must be a number greater than 0, at most 1000000000, with at most ${maxDecimals} decimal places`,
    );
  }
  return micros;
}

export function optionalAmount(body: Body, field: string, maxDecimals = 6): number | undefined {
  if (body[field] === null) throw invalidField(`${field} must be a JSON number, or left out`);
  return body[field] === undefined ? undefined : requiredAmount(body, field, maxDecimals);
}

export function optionalEnum<T extends string>(body: Body, field: string, values: readonly T[]): T | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    throw invalidField(`${field} must be one of ${values.join(', ')}`);
  }
  return v as T;
}

export function requiredEnum<T extends string>(body: Body, field: string, values: readonly T[]): T {
  if (body[field] === undefined) throw invalidField(`${field} is required`);
  return optionalEnum(body, field, values)!;
}

export function optionalInteger(body: Body, field: string, min: number, max: number): number | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalidField(`${field} must be an integer between ${min} and ${max}`);
  }
  return v;
}

export function optionalBoolean(body: Body, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw invalidField(`${field} must be a boolean`);
  return v;
}
