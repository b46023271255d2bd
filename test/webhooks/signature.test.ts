import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { specVerify } from './spec-verifier.js';
import { propertyRuns } from '../helpers/property-runs.js';

const secretArb = fc.string({ minLength: 1, maxLength: 40 }).map((s) => `whsec_${s}`);
const bodyArb = fc.uint8Array({ minLength: 0, maxLength: 512 });
const timeArb = fc.integer({ min: 1_000_000_000, max: 4_000_000_000 });

/**
 * A known answer computed outside this code base, once, with OpenSSL (and checked with Python's hmac module):
 *   printf '%s' "$T.$BODY" | openssl dgst -sha256 -hmac 'whsec_known_answer_vector_2026'
 * with T=1795000000 and BODY the literal below.
 */
const KNOWN = {
  secret: 'whsec_known_answer_vector_2026',
  t: 1795000000,
  body: '{"id":"evt_01KNOWNANSWER","type":"card.created","created":1795000000,"data":{"cardId":"card_01KNOWN","status":"ACTIVE"}}',
  v1: '7a82995c34bba58b31433178aac448d4db6118ce467ebd9f3759e67d08126606',
};

describe('webhook signature: a known answer computed with OpenSSL', () => {
  it('the sender signs the known body with exactly the known signature', () => {
    expect(signatureHeader(KNOWN.secret, KNOWN.t, KNOWN.body)).toBe(`t=${KNOWN.t},v1=${KNOWN.v1}`);
    expect(signatureHeader(KNOWN.secret, KNOWN.t, new TextEncoder().encode(KNOWN.body))).toBe(
      `t=${KNOWN.t},v1=${KNOWN.v1}`,
    );
  });

  it('the exported verifier and an independent one accept the known signature, and refuse it one bit off', async () => {
    const header = `t=${KNOWN.t},v1=${KNOWN.v1}`;
    const verify = (h: string) =>
      verifyWebhookSignature({ rawBody: KNOWN.body, header: h, secret: KNOWN.secret, now: KNOWN.t });
    expect(verify(header)).toEqual({ ok: true, timestamp: KNOWN.t });
    expect(await specVerify(new TextEncoder().encode(KNOWN.body), header, KNOWN.secret, KNOWN.t)).toBe(true);
    const flipped = header.slice(0, -1) + (KNOWN.v1.endsWith('6') ? '7' : '6');
    expect(verify(flipped)).toEqual({ ok: false, reason: 'signature_mismatch' });
  });
});

describe('webhook signature (spec Events, rule 4)', () => {
  it('verify(sign(body)) holds for any body, secret and timestamp', () => {
    fc.assert(
      fc.property(bodyArb, secretArb, timeArb, (body, secret, t) => {
        const header = signatureHeader(secret, t, body);
        expect(verifyWebhookSignature({ rawBody: body, header, secret, now: t })).toEqual({ ok: true, timestamp: t });
      }),
      { numRuns: propertyRuns(100) },
    );
  });

  it('any changed byte of the body fails', () => {
    fc.assert(
      fc.property(
        bodyArb.filter((b) => b.length > 0),
        secretArb,
        timeArb,
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (body, secret, t, i, delta) => {
          const header = signatureHeader(secret, t, body);
          const changed = Uint8Array.from(body);
          changed[i % body.length] = (changed[i % body.length] + delta) % 256;
          expect(verifyWebhookSignature({ rawBody: changed, header, secret, now: t }).ok).toBe(false);
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  it('a changed timestamp fails, even inside the tolerance', () => {
    fc.assert(
      fc.property(
        bodyArb,
        secretArb,
        timeArb,
        fc.integer({ min: -300, max: 300 }).filter((d) => d !== 0),
        (body, secret, t, d) => {
          const header = signatureHeader(secret, t, body).replace(`t=${t}`, `t=${t + d}`);
          expect(verifyWebhookSignature({ rawBody: body, header, secret, now: t })).toEqual({
            ok: false,
            reason: 'signature_mismatch',
          });
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  it('any changed byte of the secret fails', () => {
    fc.assert(
      fc.property(
        bodyArb,
        secretArb,
        timeArb,
        fc.nat(),
        fc.integer({ min: 1, max: 0x7e }),
        (body, secret, t, i, delta) => {
          const header = signatureHeader(secret, t, body);
          const chars = [...secret];
          const at = i % chars.length;
          chars[at] = String.fromCharCode((chars[at].charCodeAt(0) + delta) % 0x7f || 1);
          const other = chars.join('');
          fc.pre(other !== secret);
          expect(verifyWebhookSignature({ rawBody: body, header, secret: other, now: t }).ok).toBe(false);
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  it('a timestamp outside the tolerance fails, on either side', () => {
    fc.assert(
      fc.property(
        bodyArb,
        secretArb,
        timeArb,
        fc.integer({ min: 301, max: 1_000_000 }),
        fc.boolean(),
        (body, secret, t, d, late) => {
          const header = signatureHeader(secret, t, body);
          const now = late ? t + d : t - d;
          expect(verifyWebhookSignature({ rawBody: body, header, secret, now })).toEqual({
            ok: false,
            reason: 'timestamp_out_of_tolerance',
          });
        },
      ),
      { numRuns: propertyRuns(100) },
    );
  });

  it('honours a custom tolerance and accepts exactly at its edge', () => {
    const header = signatureHeader('whsec_x', 1000, '{}');
    expect(
      verifyWebhookSignature({ rawBody: '{}', header, secret: 'whsec_x', now: 1010, toleranceSeconds: 10 }).ok,
    ).toBe(true);
    expect(
      verifyWebhookSignature({ rawBody: '{}', header, secret: 'whsec_x', now: 1011, toleranceSeconds: 10 }).ok,
    ).toBe(false);
  });

  it('agrees with an independent WebCrypto implementation of the spec verifier', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, secretArb, timeArb, async (body, secret, t) => {
        expect(await specVerify(body, signatureHeader(secret, t, body), secret, t)).toBe(true);
      }),
      { numRuns: propertyRuns(50) },
    );
  });

  it('puts 64 lowercase hex characters in v1 after t=<unix seconds>', () => {
    expect(signatureHeader('whsec_abc', 1780272000, '{"a":1}')).toMatch(/^t=1780272000,v1=[0-9a-f]{64}$/);
  });

  it('accepts any of several v1 values (as during a secret rollover) and ignores unknown schemes', () => {
    const good = signatureHeader('whsec_new', 50, 'x').split('v1=')[1];
    const header = `t=50,v0=zzz,v1=${'0'.repeat(64)},v1=${good}`;
    expect(verifyWebhookSignature({ rawBody: 'x', header, secret: 'whsec_new', now: 50 }).ok).toBe(true);
  });

  it.each([
    undefined,
    '',
    't=1',
    'v1=' + 'a'.repeat(64),
    't=abc,v1=' + 'a'.repeat(64),
    't=1,v1=XYZ',
    't=1,t=2,v1=' + 'a'.repeat(64),
    'garbage',
  ])('rejects the malformed header %j', (header) => {
    expect(verifyWebhookSignature({ rawBody: 'x', header, secret: 'whsec_x', now: 1 })).toEqual({
      ok: false,
      reason: 'malformed_header',
    });
  });

  it('imports nothing but node:crypto, so partners can load it without the server', async () => {
    const { readFileSync } = await import('node:fs');
    const source = readFileSync(new URL('../../src/webhooks/verify.ts', import.meta.url), 'utf8');
    expect([...source.matchAll(/from '([^']+)'/g)].map((m) => m[1])).toEqual(['node:crypto']);
  });
});
