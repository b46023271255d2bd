import fc from 'fast-check';
import { readSchemaFiles } from '../../src/contracts/files.js';

// fast-check arbitraries drawn from the request schemas of contracts/: values each schema accepts, and bodies
// that break it in one place (a missing required field, a wrong type, a value out of range, an unknown field).
// Callers confirm each drawn body with the contract's own validator, so this needs to cover the keywords the
// request schemas use, not all of JSON Schema.

type Schema = Record<string, any>;

const files = new Map(readSchemaFiles().map((f) => [f.schema.$id, f.schema as Schema]));

function resolve(schema: Schema, fileId: string): { schema: Schema; fileId: string } {
  let s = schema;
  let id = fileId;
  while (typeof s.$ref === 'string') {
    const target = new URL(s.$ref, id).href;
    id = target;
    s = files.get(target)!;
  }
  return { schema: s, fileId: id };
}

const DECIMALS = (step: number) => Math.max(0, -Math.floor(Math.log10(step) + 1e-9));

function number(s: Schema): fc.Arbitrary<number> {
  const min = s.exclusiveMinimum ?? s.minimum ?? 0;
  const max = s.exclusiveMaximum ?? s.maximum ?? 1e9;
  const step = typeof s.multipleOf === 'number' ? s.multipleOf : 1;
  const d = DECIMALS(step);
  const lo = Math.ceil(min / step);
  const hi = Math.floor(max / step);
  // Integers of steps, turned into numbers through decimal text (what a client's JSON would carry).
  return fc
    .oneof(
      fc.constantFrom(lo, hi, lo + 1),
      fc.integer({ min: lo, max: Math.min(hi, lo + 1_000_000) }),
      fc.integer({ min: lo, max: hi }),
    )
    .map((n) => (d === 0 ? n * step : Number((n / 10 ** d).toFixed(d))))
    .filter(
      (n) =>
        (s.exclusiveMinimum === undefined || n > s.exclusiveMinimum) &&
        (s.exclusiveMaximum === undefined || n < s.exclusiveMaximum),
    );
}

/** Real TRON addresses: their base58check checksum is a domain check no pattern can state. */
const TRON = ['TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'];

function string(s: Schema): fc.Arbitrary<string> {
  if (s.pattern === '^T[1-9A-HJ-NP-Za-km-z]{33}$') return fc.constantFrom(...TRON);
  if (typeof s.pattern === 'string')
    return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= (s.maxLength ?? 1e6));
  // Random text is never a date-time: drawn as one, else a filter on the contract's validator never lets one through.
  if (s.format === 'date-time')
    return fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (s.format === 'uri')
    return fc.constantFrom('https://partner.example.com/hooks', 'https://hooks.example.org/x?y=1');
  return fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 40, 40), unit: 'grapheme-ascii' });
}

/** Values the schema accepts (mostly: the caller filters with the contract's validator). */
export function valid(schema: Schema, fileId: string): fc.Arbitrary<unknown> {
  const { schema: s, fileId: id } = resolve(schema, fileId);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.anyOf) && s.type !== 'object') return fc.oneof(...s.anyOf.map((b: Schema) => valid(b, id)));
  switch (s.type) {
    case 'string':
      return string(s);
    case 'integer':
    case 'number':
      return number(s);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valid(s.items, id), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 3, 3) });
    case 'object': {
      const props = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, valid(v as Schema, id)]));
      // An object's anyOf names fields one of which it needs (a refund: transactionId, or cardId): each a branch.
      const needs: string[][] = Array.isArray(s.anyOf) ? s.anyOf.map((b: Schema) => b.required ?? []) : [[]];
      return fc.oneof(...needs.map((extra) => fc.record(props, { requiredKeys: [...(s.required ?? []), ...extra] })));
    }
  }
  return fc.constant(null);
}

/** A value's JSON type, an integer apart from other numbers (a schema's `integer` takes 12, not 1.5). */
function jsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Whether a schema's `type` (or one of its anyOf branches') takes a value of this JSON type. */
function takesTypeOf(schema: Schema, fileId: string, v: unknown): boolean {
  const { schema: s, fileId: id } = resolve(schema, fileId);
  if (Array.isArray(s.anyOf)) return s.anyOf.some((b: Schema) => takesTypeOf(b, id, v));
  const t = jsonType(v);
  return [s.type ?? []].flat().some((type: string) => type === t || (type === 'number' && t === 'integer'));
}

/**
 * Values of a type the schema does not take (a string where a number belongs, and so on); undefined when it takes
 * every one. A value of the right type breaking only a `format` ("text" for a date-time) is no wrong type: the
 * server checks formats in a handler where it checks them at all (a webhook URL), so such a body is not the 400 of a
 * broken schema.
 */
function wrongType(schema: Schema, fileId: string): fc.Arbitrary<unknown> | undefined {
  const all = ['text', 12, true, [1], { x: 1 }, 1.5].filter((v) => !takesTypeOf(schema, fileId, v));
  return all.length ? fc.constantFrom(...all) : undefined;
}

export interface Mutation {
  describe: string;
  body: Record<string, unknown>;
}

/**
 * A valid body broken in one place; undefined when the schema leaves nothing to break (an open `{}`). The valid
 * bodies are drawn from the schema, or from `drawn` where a body's parts must also hold together.
 */
export function invalid(
  schema: Schema,
  fileId: string,
  closed: boolean,
  drawn?: fc.Arbitrary<Record<string, unknown>>,
): fc.Arbitrary<Mutation> | undefined {
  const { schema: s, fileId: id } = resolve(schema, fileId);
  const base = drawn ?? (valid(s, id) as fc.Arbitrary<Record<string, unknown>>);
  const fields = Object.keys(s.properties ?? {});
  const required: string[] = s.required ?? [];
  const options: fc.Arbitrary<Mutation>[] = [];
  if (required.length)
    options.push(
      fc.tuple(base, fc.constantFrom(...required)).map(([b, f]) => {
        const { [f]: _gone, ...rest } = b;
        return { describe: `without ${f}`, body: rest };
      }),
    );
  const typed = fields.filter((f) => wrongType(s.properties[f], id) !== undefined);
  if (typed.length)
    options.push(
      fc.tuple(base, fc.constantFrom(...typed)).chain(([b, f]) =>
        wrongType(s.properties[f], id)!.map((v) => ({
          describe: `${f} = ${JSON.stringify(v)}`,
          body: { ...b, [f]: v },
        })),
      ),
    );
  const bounded = fields.filter((f) => {
    const p = resolve(s.properties[f], id).schema;
    return (
      p.maximum !== undefined ||
      p.maxLength !== undefined ||
      p.minimum !== undefined ||
      p.exclusiveMinimum !== undefined
    );
  });
  if (bounded.length)
    options.push(
      fc.tuple(base, fc.constantFrom(...bounded), fc.boolean()).map(([b, f, high]) => {
        const p = resolve(s.properties[f], id).schema;
        const v =
          p.type === 'string'
            ? 'x'.repeat((p.maxLength ?? 0) + 1)
            : high && p.maximum !== undefined
              ? p.maximum + (p.type === 'integer' ? 1 : 0.5)
              : (p.exclusiveMinimum ?? p.minimum ?? 0) - 1;
        return { describe: `${f} = ${JSON.stringify(v)}`, body: { ...b, [f]: v } };
      }),
    );
  if (closed) options.push(base.map((b) => ({ describe: 'an unknown field', body: { ...b, notAField: 1 } })));
  return options.length ? fc.oneof(...options) : undefined;
}
