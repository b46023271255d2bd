import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signature check for the receiver, exactly as the spec states it: HMAC-SHA256 keyed with the whole
 * secret over `<t>.<raw body>`, hex in `v1`, constant-time compare, 300 s tolerance on the wall clock.
 * Adapter seam: once src/webhooks/verify.ts is on main, this delegates to its verifyWebhookSignature so the
 * receiver and partners use one verifier.
 */
export function signatureProblem(secret: string, header: string | undefined, rawBody: Buffer, nowMs = Date.now()): string | undefined {
  if (!header) return 'no signature header';
  const parts = Object.fromEntries(header.split(',').map((p) => p.trim().split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!/^\d+$/.test(parts.t ?? '') || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) return `malformed signature header ${JSON.stringify(header)}`;
  if (Math.abs(nowMs / 1000 - t) > 300) return `signature timestamp ${t} outside the 300 s tolerance`;
  const want = createHmac('sha256', secret).update(`${parts.t}.`).update(rawBody).digest();
  if (!timingSafeEqual(want, Buffer.from(parts.v1, 'hex'))) return 'signature does not match the body';
  return undefined;
}
