import { describe, expect, it } from 'vitest';
import { decimalEquals, match } from '../../src/scenario/match.js';
import { durationSeconds, render, TemplateError } from '../../src/scenario/template.js';

describe('body matchers', () => {
  it.each([
    ['"49" equals 49.00 as decimals', { $decimal: '49' }, '49.00', true],
    ['a number equals its decimal string', { $decimal: '10.5' }, 10.5, true],
    ['0.1 + 0.2 is not 0.3 when written so', { $decimal: '0.3' }, '0.30000000000000004', false],
    ['-0 is 0', { $decimal: '0' }, '-0.00', true],
    ['a string is not a number', { $type: 'number' }, '1', false],
    ['an integer is a number', { $type: 'number' }, 3, true],
    ['regex with flags', { $regex: '/ADD FUNDS/i' }, 'please add funds', true],
    ['absent', { $absent: true }, undefined, true],
    ['absent fails on null (null is present)', { $absent: true }, null, false],
    ['length', { $length: 2 }, [1, 2], true],
    [
      'contains, in any order',
      { $contains: [{ id: 'b' }, { id: 'a' }] },
      [{ id: 'a', x: 1 }, { id: 'c' }, { id: 'b' }],
      true,
    ],
    ['contains needs every expected item', { $contains: [{ id: 'a' }, { id: 'z' }] }, [{ id: 'a' }], false],
  ])('%s', (_, expected, actual, ok) => {
    expect(match(expected, actual).length === 0).toBe(ok);
  });

  it('objects match partially; arrays item by item with the same length', () => {
    expect(match({ a: 1 }, { a: 1, b: 2 })).toEqual([]);
    expect(match([{ a: 1 }], [{ a: 1 }, { a: 2 }])).toEqual([{ path: '$', expected: '1 items', actual: '2 items' }]);
    expect(match({ list: [{ id: 'x' }] }, { list: [{ id: 'y' }] })).toEqual([
      { path: '$.list[0].id', expected: '"x"', actual: '"y"' },
    ]);
    expect(match({ 'Idempotent-Replayed': 'true' }, {})).toEqual([
      { path: '$["Idempotent-Replayed"]', expected: '"true"', actual: '(absent)' },
    ]);
  });

  it('decimal equality never goes through floats', () => {
    expect(decimalEquals('1000000000.000001', '1000000000.000001000')).toBe(true);
    expect(decimalEquals('1000000000.000001', '1000000000.000002')).toBe(false);
    expect(decimalEquals('abc', 'abc')).toBe(false);
  });
});

describe('templates', () => {
  it('a whole placeholder keeps the type; embedded ones are text; {{uuid}} is fresh each time', () => {
    const out = render({ amount: '{{n}}', label: 'card {{n}}', a: '{{uuid}}', b: '{{uuid}}' }, { n: 20 }) as Record<
      string,
      unknown
    >;
    expect(out.amount).toBe(20);
    expect(out.label).toBe('card 20');
    expect(out.a).not.toBe(out.b);
    expect(render('{{now}}', {})).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it('an unknown variable is an error naming it', () => {
    expect(() => render('{{nope}}', {})).toThrow(new TemplateError('unknown variable {{nope}}'));
  });

  it.each([
    [90, 90],
    ['90s', 90],
    ['1h', 3600],
    ['7d', 604800],
    ['250ms', 0.25],
  ])('duration %s is %s s', (d, s) => expect(durationSeconds(d)).toBe(s));
});
