import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/redaction/redactor.js';

// Redaction runs on the server's one event loop (the access log redacts every path, the request log every body), so
// its work must grow with the text, never with its square: a 40 KB word followed by `secret=1` once took 8.5 s and
// froze every tenant. These inputs are a megabyte each; were the work quadratic they would take hours, and the test's
// limit (it bounds a hung run, it does not time anything) would fail it. Each also checks what comes out.

const MB = 1024 * 1024;
const redactor = new Redactor(['adm_token_0123456789']);

describe('redaction of hostile text: linear work, and still right', () => {
  it('a megabyte-long word, then a named secret', () => {
    const text = `${'a'.repeat(MB)} secret=1 cvv=123`;
    expect(redactor.text(text)).toBe(`${'a'.repeat(MB)} secret=[REDACTED] cvv=[REDACTED]`);
  });

  it('a secret name repeated a megabyte long, with no separator', () => {
    const text = 'secret'.repeat(MB / 6);
    expect(redactor.text(text)).toBe(text);
  });

  it('a megabyte of name-like words, each with a separator but no value', () => {
    const text = 'token='.repeat(MB / 6);
    expect(redactor.text(text).length).toBeGreaterThan(0);
  });

  it('a megabyte of digits and separators that spell no card number', () => {
    const text = '1 '.repeat(MB / 2);
    expect(redactor.text(text)).toBe(text);
  });

  it('a megabyte of path segments, and a query of a thousand parameters', () => {
    const path = `/v1/${'a/'.repeat(MB / 2)}4549248271441391`;
    expect(redactor.url(path).endsWith('************1391')).toBe(true);
    const query = Array.from({ length: 1000 }, (_, i) => `p${i}=${'x'.repeat(500)}`).join('&');
    expect(redactor.url(`/v1/x?${query}&apiKey=adm_token_0123456789`)).toContain('apiKey=[REDACTED]');
  });

  it('a megabyte of JSON through its structure', () => {
    const body = JSON.stringify({ notes: Array.from({ length: 20_000 }, () => `secret${'x'.repeat(40)}`), cvv: 123 });
    const out = JSON.stringify(redactor.value(JSON.parse(body)));
    expect(out).toContain('"cvv":"[REDACTED]"');
  });

  it('a megabyte of unclosed XML elements and CDATA named as secrets, then a real one', () => {
    const text = `${'<cvv><![CDATA['.repeat(MB / 14)}<cvv>123</cvv>`;
    expect(redactor.text(text).endsWith('<cvv>[REDACTED]</cvv>')).toBe(true);
  });

  it('a megabyte of multipart names without a blank line, then a real part', () => {
    const text = `form-data; ${'name="cvv"\n'.repeat(MB / 11)}\r\nname="cvv"\r\n\r\n123\r\n--b--`;
    expect(redactor.text(text)).not.toContain('123');
  });

  it('a megabyte of percent-escapes, of base64 and of full-width digits', () => {
    const escapes = '%41'.repeat(MB / 3);
    expect(redactor.text(escapes)).toBe(escapes);
    const base64 = Buffer.alloc((MB * 3) / 4, 7).toString('base64');
    expect(redactor.text(`${base64} ${Buffer.from('sk_sandbox_abcdefghij').toString('base64')}`)).toBe(
      `${base64} [REDACTED]`,
    );
    const digits = '\uff11\uff12 '.repeat(MB / 3);
    expect(redactor.text(digits)).toBe(digits);
  });
});
