import type { ServerSecret } from './secrets.js';

// Cardholder data is derived on demand from the server secret and the card id, so it is reproducible and
// never stored. Nothing here logs; callers must not either.

export interface CardData {
  cardNo: string;
  cvv: string;
  expiryDate: string;
}

/** Luhn check digit for a string of digits (the payload without its check digit). */
function luhnCheckDigit(payload: string): string {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    let d = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

function digitsFrom(mac: Buffer, count: number): string {
  let out = '';
  for (let i = 0; out.length < count; i++) out += String(mac[i % mac.length]! % 10);
  return out;
}

/** The 16-digit PAN: BIN digits, HMAC-derived digits, Luhn check digit. */
export function derivePan(secret: ServerSecret, cardId: string, binDigits: string): string {
  const body = digitsFrom(secret.hmac('pan', cardId), 15 - binDigits.length);
  const payload = binDigits + body;
  return payload + luhnCheckDigit(payload);
}

/** Everything sensitiveInfo returns; expiry is 36 months after issue, as MM/YY. */
export function deriveCardData(secret: ServerSecret, cardId: string, binDigits: string, issuedAtMs: number): CardData {
  const issued = new Date(issuedAtMs);
  const expiry = new Date(Date.UTC(issued.getUTCFullYear(), issued.getUTCMonth() + 36, 1));
  return {
    cardNo: derivePan(secret, cardId, binDigits),
    cvv: digitsFrom(secret.hmac('cvv', cardId), 3),
    expiryDate:
      String(expiry.getUTCMonth() + 1).padStart(2, '0') + '/' + String(expiry.getUTCFullYear() % 100).padStart(2, '0'),
  };
}

/** The stored form of the masked number (card/list, card/detail). */
export const maskStored = (last4: string): string => '************' + last4;

/** The form card/create answers with. */
export const maskGrouped = (last4: string): string => '**** **** **** ' + last4;
