import { createHmac } from 'node:crypto';

/** The hex HMAC-SHA256 of `<t>.<body>` with the whole secret string as key (prefix included), as the spec says. */
function signatureHex(secret: string, timestampSeconds: number, rawBody: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestampSeconds}.`).update(rawBody).digest('hex');
}

/** The value of the `<Prefix>-Signature` header for one attempt. */
export function signatureHeader(secret: string, timestampSeconds: number, rawBody: string | Uint8Array): string {
  return `t=${timestampSeconds},v1=${signatureHex(secret, timestampSeconds, rawBody)}`;
}
