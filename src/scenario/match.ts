/**
 * Partial matching of an actual JSON value against an expectation. Objects match when every expected field
 * matches (extra actual fields are fine); arrays match element by element and must have the same length;
 * scalars are equal. A one-key object whose key starts with `$` is a matcher.
 */

export interface Mismatch {
  path: string;
  expected: string;
  actual: string;
}

const MATCHERS = ['$type', '$regex', '$decimal', '$absent', '$length', '$contains'] as const;
type MatcherKey = (typeof MATCHERS)[number];

function matcherOf(v: unknown): [MatcherKey, unknown] | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  if (keys.length !== 1 || !(MATCHERS as readonly string[]).includes(keys[0])) return undefined;
  return [keys[0] as MatcherKey, (v as Record<string, unknown>)[keys[0]]];
}

const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v));

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isInteger(v)) return 'integer';
  return typeof v;
}

/**
 * Exact decimal comparison without floats: "49", "49.00" and 49 are equal; 0.1+0.2 is never involved.
 * @internal exported for its table of cases (test/scenario/match.test.ts)
 */
export function decimalEquals(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): string | undefined => {
    const s =
      typeof v === 'number'
        ? Number.isFinite(v)
          ? numberText(v)
          : undefined
        : typeof v === 'string'
          ? v.trim()
          : undefined;
    const m = s === undefined ? null : /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(s);
    if (!m) return undefined;
    const int = m[2].replace(/^0+(?=\d)/, '');
    const frac = (m[3] ?? '').replace(/0+$/, '');
    const sign = m[1] === '-' && !(int === '0' && frac === '') ? '-' : '';
    return `${sign}${int}${frac ? `.${frac}` : ''}`;
  };
  const x = norm(a);
  return x !== undefined && x === norm(b);
}

/** A number's plain decimal text (no exponent), as JSON numbers in responses are read. */
function numberText(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toFixed(20).replace(/\.?0+$/, '');
}

/** `"^\\d+$"` or, for flags, `"/add funds/i"`. */
function regexOf(text: string): RegExp {
  const m = /^\/(.*)\/([a-z]*)$/s.exec(text);
  return m ? new RegExp(m[1], m[2]) : new RegExp(text);
}

function matchOne(key: MatcherKey, arg: unknown, actual: unknown, path: string, out: Mismatch[]): void {
  const fail = (expected: string) => out.push({ path, expected, actual: show(actual) });
  switch (key) {
    case '$absent':
      if ((arg !== false) !== (actual === undefined)) fail(arg !== false ? '(absent)' : '(present)');
      return;
    case '$type': {
      const want = String(arg);
      const got = typeOf(actual);
      const ok =
        want === got || (want === 'number' && got === 'integer') || (want === 'present' && actual !== undefined);
      if (!ok) fail(`a value of type ${want}`);
      return;
    }
    case '$regex':
      if (typeof actual !== 'string' || !regexOf(String(arg)).test(actual))
        fail(`a string matching ${String(regexOf(String(arg)))}`);
      return;
    case '$decimal':
      if (!decimalEquals(arg, actual)) fail(`the decimal ${String(arg)}`);
      return;
    case '$contains': {
      // Each expected item must match some element, in any order: lists others may grow (BINs are global).
      if (!Array.isArray(actual)) {
        fail('an array');
        return;
      }
      for (const want of Array.isArray(arg) ? arg : [arg]) {
        if (!actual.some((item) => match(want, item).length === 0)) fail(`an item matching ${show(want)}`);
      }
      return;
    }
    case '$length':
      if (!(Array.isArray(actual) || typeof actual === 'string') || actual.length !== arg)
        fail(`length ${String(arg)}`);
      return;
  }
}

/** Every way `actual` differs from `expected`, with JSONPath-like locations. Empty when it matches. */
export function match(expected: unknown, actual: unknown, path = '$'): Mismatch[] {
  const out: Mismatch[] = [];
  walk(expected, actual, path, out);
  return out;
}

function walk(expected: unknown, actual: unknown, path: string, out: Mismatch[]): void {
  const m = matcherOf(expected);
  if (m) return matchOne(m[0], m[1], actual, path, out);
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) {
      out.push({ path, expected: `an array of ${expected.length}`, actual: show(actual) });
      return;
    }
    if (actual.length !== expected.length)
      out.push({ path, expected: `${expected.length} items`, actual: `${actual.length} items` });
    expected.forEach((e, i) => walk(e, actual[i], `${path}[${i}]`, out));
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      out.push({ path, expected: 'an object', actual: show(actual) });
      return;
    }
    for (const [k, v] of Object.entries(expected)) {
      walk(
        v,
        (actual as Record<string, unknown>)[k],
        /^[A-Za-z_]\w*$/.test(k) ? `${path}.${k}` : `${path}[${JSON.stringify(k)}]`,
        out,
      );
    }
    return;
  }
  if (expected !== actual) out.push({ path, expected: show(expected), actual: show(actual) });
}
