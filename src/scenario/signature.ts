import { verifyWebhookSignature } from '../webhooks/verify.js';

const REASONS = {
  malformed_header: 'malformed signature header',
  timestamp_out_of_tolerance: 'signature timestamp outside the 300 s tolerance',
  signature_mismatch: 'signature does not match the body',
} as const;

/**
 * Why a delivery's signature does not verify (undefined when it does), with the same verifier partners import,
 * so the receiver proves the sandbox against the published one: HMAC-SHA256 with the whole secret as key over
 * `<t>.<raw body>`, constant-time compare, 300 s tolerance on the wall clock.
 */
export function signatureProblem(secret: string, header: string | undefined, rawBody: Buffer): string | undefined {
  if (!header) return 'no signature header';
  const r = verifyWebhookSignature({ rawBody, header, secret });
  return r.ok ? undefined : REASONS[r.reason];
}
