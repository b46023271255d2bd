// Names under which a value is a secret, whatever its shape: a field of a body, a query parameter, a header. Short
// secrets (a CVV, an OTP) can only be found this way. Names are compared case-insensitively and without their
// separators, so `card_cvv`, `Card-CVV`, `cardCvv` and the header `X-Card-Cvv` are one name.

/**
 * Names that are secret wherever they contain one of these words: credentials, and the card's security code under
 * any name built on its usual ones (cvv, cvc, cvn: `cvv_code`, `cvvNumber`, `CVV-Code`, `cvv2Value`, `cardCode`).
 */
const CONTAINS =
  /secret|password|passwd|passphrase|token|apikey|authorization|cookie|signature|privatekey|cvv|cvc|cvn|cardcode|securitycode/;
/**
 * Names that are secret when they end with one of these: the security code's other names (csc, cvd, cv2, cid2, the
 * card verification code or value), the one-time 3DS code, the card number and expiry.
 */
const ENDS_WITH =
  /(?:csc|cvd|cv2|cav2|cid2|cardverificationcode|cardverificationvalue|otp|onetimepassword|onetimecode|pan|cardno|cardnum|cardnumber|pannumber|primaryaccountnumber|expirydate|expirationdate)$/;
/** Names that are exactly one of these: too short to look for inside others. */
const EXACTLY = /^(?:cid|xcid)$/;
/** Names that look like the above but hold nothing secret: a masked number, a word that merely ends in "pan". */
const NOT_SECRET = /^masked|(?:japan|company|span)$/;

const cache = new Map<string, boolean>();
/** Header and field names repeat on every request; the answer is remembered (bounded). */
const CACHE_LIMIT = 10_000;

/** Whether a value under this name is a secret (censored whole, whatever it holds). */
export function isSecretName(name: string): boolean {
  let hit = cache.get(name);
  if (hit === undefined) {
    const bare = name.toLowerCase().replace(/[^a-z0-9]/g, '');
    hit = CONTAINS.test(bare) || EXACTLY.test(bare) || (ENDS_WITH.test(bare) && !NOT_SECRET.test(bare));
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(name, hit);
  }
  return hit;
}
