import type { ServerSecret } from '../kernel/secrets.js';

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

/**
 * A 16-digit PAN ending in `last4`: BIN digits, HMAC-derived digits, the one digit that makes the Luhn sum right,
 * then `last4`. For a card made under another server secret (loaded from a snapshot, docs/decisions.md), whose
 * derived PAN would end otherwise than the last four digits it has always shown.
 */
function panEndingIn(secret: ServerSecret, cardId: string, binDigits: string, last4: string): string {
  const body = digitsFrom(secret.hmac('pan', cardId), 16 - binDigits.length - 5);
  for (let d = 0; d <= 9; d++) {
    const pan = binDigits + body + d + last4;
    if (luhnCheckDigit(pan.slice(0, -1)) === pan.slice(-1)) return pan;
  }
  throw new Error('no Luhn digit: unreachable, one of ten always balances the sum');
}

/**
 * Everything sensitiveInfo returns; expiry is 36 months after issue, as MM/YY. The PAN is the one derived from this
 * server's secret, unless it would not end in the card's `last4` (a card made under another secret): then the PAN
 * ending in them.
 */
export function deriveCardData(
  secret: ServerSecret,
  card: { id: string; last4: string; createdAtMs: number },
  binDigits: string,
): CardData {
  const issued = new Date(card.createdAtMs);
  const expiry = new Date(Date.UTC(issued.getUTCFullYear(), issued.getUTCMonth() + 36, 1));
  const derived = derivePan(secret, card.id, binDigits);
  return {
    cardNo: derived.endsWith(card.last4) ? derived : panEndingIn(secret, card.id, binDigits, card.last4),
    cvv: digitsFrom(secret.hmac('cvv', card.id), 3),
    expiryDate:
      String(expiry.getUTCMonth() + 1).padStart(2, '0') + '/' + String(expiry.getUTCFullYear() % 100).padStart(2, '0'),
  };
}

/** The stored form of the masked number (card/list, card/detail). */
export const maskStored = (last4: string): string => '************' + last4;

/** The form card/create answers with. */
export const maskGrouped = (last4: string): string => '**** **** **** ' + last4;
