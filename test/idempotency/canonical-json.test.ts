import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/domain/idempotency/keys.js';
import { propertyRuns } from '../helpers/property-runs.js';

/** The obvious recursive definition, as the reference. */
function reference(value: unknown): string {
  if (Array.isArray(value)) return '[' + value.map(reference).join(',') + ']';
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return (
      '{' +
      Object.keys(obj)
        .sort()
        .map((k) => JSON.stringify(k) + ':' + reference(obj[k]))
        .join(',') +
      '}'
    );
  }
  return JSON.stringify(value);
}

/** The same value with every object's keys in reverse insertion order. */
function reorder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reorder);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .reverse()
        .map(([k, v]) => [k, reorder(v)]),
    );
  }
  return value;
}

describe('Idempotency: "identical body" means the same JSON value', () => {
  it('canonical JSON equals the recursive reference and ignores key order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const parsed = JSON.parse(JSON.stringify(v));
        expect(canonicalJson(parsed)).toBe(reference(parsed));
        expect(canonicalJson(reorder(parsed))).toBe(canonicalJson(parsed));
        expect(JSON.parse(canonicalJson(parsed))).toEqual(parsed);
      }),
      { numRuns: propertyRuns(1000) },
    );
  });
});
