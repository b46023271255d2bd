import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/redaction/redactor.js';
import { withCheckDigit } from '../helpers/luhn.js';
import { propertyRuns } from '../helpers/property-runs.js';

// The shape rules of redaction by value, against an oracle written here: card numbers are found in any spelling and
// only card numbers are (our 22-digit card ids, millisecond timestamps, amounts and Luhn-invalid numbers stay).

const RUNS = propertyRuns(Number(process.env.REDACTION_RUNS ?? 200));
const redactor = new Redactor();

const digits = (n: number) =>
  fc.array(fc.integer({ min: 0, max: 9 }), { minLength: n, maxLength: n }).map((d) => d.join(''));
const validPan = digits(15).map((b) => withCheckDigit(`4${b.slice(1)}`));
const invalidPan = validPan.map((p) => p.slice(0, 15) + String((Number(p[15]) + 1) % 10));
const separator = fc.constantFrom(' ', '  ', '.', '/', '-', '_', '\t', '\n', '%20', '+', '\\n', ' / ');
/** Text around a number that cannot join it (digits next to it would make another number). */
const filler = fc.stringMatching(/^[a-zA-Z:"=, ]{0,12}$/).map((s) => (s === '' ? ' ' : s));

function spell(pan: string, sep: string, grouping: readonly number[]): string {
  const out: string[] = [];
  let at = 0;
  for (const size of grouping) out.push(pan.slice(at, (at += size)));
  return out.join(sep);
}

describe('card numbers in any spelling', () => {
  it('a Luhn-valid number written with any separators keeps only its last four digits', () => {
    fc.assert(
      fc.property(
        validPan,
        separator,
        fc.constantFrom([4, 4, 4, 4], [4, 6, 6], [16], [2, 2, 4, 4, 4]),
        filler,
        filler,
        (pan, sep, grouping, before, after) => {
          const spelled = spell(pan, sep, grouping);
          const out = redactor.text(`${before}${spelled}${after}`);
          // The filler holds no digit, so what is left of digits and stars once the separators go is the number.
          const kept = out
            .split(sep)
            .join('')
            .replace(/[^0-9*]/g, '');
          expect(kept).toBe(`************${pan.slice(12)}`);
          expect(out).toContain(before);
          expect(out).toContain(after);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a Luhn-invalid number, a 22-digit card id, a 13-digit timestamp and amounts are left as they are', () => {
    fc.assert(
      fc.property(invalidPan, separator, digits(14), fc.integer({ min: 0, max: 2 ** 40 }), (pan, sep, tail, ms) => {
        const text = `${spell(pan, sep, [4, 4, 4, 4])} card 20260601${tail} at ${1_700_000_000_000 + ms} amount 1234.56`;
        expect(redactor.text(text)).toBe(text);
      }),
      { numRuns: RUNS },
    );
  });

  it('a card number sent as a bare JSON number is masked through the structure', () => {
    fc.assert(
      fc.property(validPan, (pan) => {
        const out = JSON.stringify(redactor.value(JSON.parse(`{"n": ${pan}, "list": [${pan}]}`)));
        expect(out).not.toContain(pan.slice(0, 12));
        expect(out).toBe(`{"n":"************${pan.slice(12)}","list":["************${pan.slice(12)}"]}`);
      }),
      { numRuns: RUNS },
    );
  });

  it('values known to the redactor are masked in every form: as written, JSON-escaped, percent-encoded', () => {
    const known = 'adm/"tok en"';
    const r = new Redactor([known]);
    const text = `a ${known} b ${JSON.stringify(known)} c ${encodeURIComponent(known)}`;
    expect(r.text(text)).toBe('a [REDACTED] b "[REDACTED]" c [REDACTED]');
  });
});
