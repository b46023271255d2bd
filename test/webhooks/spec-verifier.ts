/**
 * An independent reading of the spec's verifier (Events, rule 4), on WebCrypto rather than node:crypto's
 * createHmac: HMAC-SHA256 keyed with the secret's UTF-8 bytes over `<t>.<raw body>`, hex in `v1`.
 */
export async function specVerify(rawBody: Uint8Array, header: string, secret: string, nowS: number): Promise<boolean> {
  const fields = Object.fromEntries(header.split(',').map((kv) => kv.split('=') as [string, string]));
  const t = Number(fields.t);
  if (!/^[0-9a-f]{64}$/.test(fields.v1 ?? '') || Math.abs(nowS - t) > 300) return false;
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['verify'],
  );
  const prefix = new TextEncoder().encode(`${fields.t}.`);
  const signed = new Uint8Array(prefix.length + rawBody.length);
  signed.set(prefix);
  signed.set(rawBody, prefix.length);
  const mac = Uint8Array.from(fields.v1.match(/../g)!.map((h) => parseInt(h, 16)));
  return crypto.subtle.verify('HMAC', key, mac, signed);
}
