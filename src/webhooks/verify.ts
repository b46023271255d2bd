import { createHmac, timingSafeEqual } from 'node:crypto';

// The partner-facing verifier, exported as `card-issuing-sandbox/webhooks`. It imports nothing but node:crypto so a
// receiver can load it without pulling in the sandbox server.

export interface VerifyWebhookSignatureInput {
  /** The request body exactly as received, before any JSON parsing. */
  rawBody: string | Uint8Array;
  /**
   * The value of the `<Prefix>-Signature` header: `t=<unix seconds>,v1=<64 hex>` (several `v1` are allowed).
   * Node's `req.headers[...]` may be passed as is: a repeated header is judged by its first value.
   */
  header: string | readonly string[] | null | undefined;
  /** The whole signing secret, `whsec_...` (the HMAC key is the secret string as UTF-8, prefix included). */
  secret: string;
  /** Largest accepted distance between `t` and `now`, in seconds. Default 300, as the reference verifiers. */
  toleranceSeconds?: number;
  /** Current Unix time in seconds. Default: the system clock. */
  now?: number;
}

export type VerifyWebhookSignatureResult =
  | { ok: true; timestamp: number }
  | { ok: false; reason: 'malformed_header' | 'timestamp_out_of_tolerance' | 'signature_mismatch' };

const V1 = /^[0-9a-f]{64}$/;

/**
 * Checks a webhook signature: HMAC-SHA256 with the secret as key over `<t>.<raw body>`, compared in constant time.
 * Timestamps further than the tolerance from `now`, in either direction, are refused (replays and clock abuse).
 */
export function verifyWebhookSignature(input: VerifyWebhookSignatureInput): VerifyWebhookSignatureResult {
  const parsed = parseSignatureHeader(
    Array.isArray(input.header) ? input.header[0] : (input.header as string | null | undefined),
  );
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const tolerance = input.toleranceSeconds ?? 300;
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - parsed.timestamp) > tolerance) return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const body = typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : Buffer.from(input.rawBody);
  const expected = createHmac('sha256', Buffer.from(input.secret, 'utf8'))
    .update(`${parsed.timestamp}.`)
    .update(body)
    .digest();
  // Every candidate is compared, so the time taken does not reveal which one (if any) matched.
  let match = false;
  for (const hex of parsed.signatures) {
    if (timingSafeEqual(expected, Buffer.from(hex, 'hex'))) match = true;
  }
  return match ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'signature_mismatch' };
}

/** `t=<digits>` once, and one or more `v1=<64 lowercase hex>`; unknown schemes are ignored. */
export function parseSignatureHeader(
  header: string | null | undefined,
): { timestamp: number; signatures: string[] } | undefined {
  if (typeof header !== 'string') return undefined;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!V1.test(value)) return undefined;
      signatures.push(value);
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}
