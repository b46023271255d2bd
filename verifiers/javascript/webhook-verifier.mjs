import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Whether signatureHeader (the Service-Signature value) signs rawBody, the bytes as received (a Buffer, or a string
 * as UTF-8), with secret, at a time within toleranceSeconds of nowSeconds (300 in the reference verifiers).
 */
export function verify(secret, signatureHeader, rawBody, nowSeconds = Date.now() / 1000, toleranceSeconds = 300) {
  if (typeof signatureHeader !== 'string') return false;
  let timestamp = -1;
  const signatures = [];
  for (const part of signatureHeader.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) return false;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp >= 0 || !/^[0-9]{1,12}$/.test(value)) return false;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/.test(value)) return false;
      signatures.push(Buffer.from(value, 'hex'));
    }
  }
  if (timestamp < 0 || signatures.length === 0) return false;
  if (Math.abs(Math.floor(nowSeconds) - timestamp) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  // Every candidate is compared, so the time taken does not tell which one matched.
  let matched = false;
  for (const signature of signatures) matched = timingSafeEqual(expected, signature) || matched;
  return matched;
}
