import { isSecretField, REDACTED, scrubText } from './redaction.js';

// The request log stores bodies and headers, so they get the logs' two layers of redaction (by field name, then by
// shape) applied to values rather than to a line of text: a card number sent as a JSON number must be masked too,
// and masking must never break the JSON it sits in.

const MAX_DEPTH = 32;
const LONG_NUMBER = 1e14;

/** A copy of a JSON value with secret fields censored and every string (and long number) scrubbed by shape. */
export function redactValue(value: unknown, alsoMask: readonly string[] = [], depth = 0): unknown {
  if (typeof value === 'string') return scrubString(value, alsoMask);
  if (typeof value === 'number') {
    // 15 to 19 digits: possibly a card number sent as a number; masked like one when Luhn-valid.
    if (Number.isInteger(value) && Math.abs(value) >= LONG_NUMBER) {
      const text = String(value);
      const scrubbed = scrubText(text);
      return scrubbed === text ? value : scrubbed;
    }
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[Truncated]';
  if (Array.isArray(value)) return value.map((v) => redactValue(v, alsoMask, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = isSecretField(k) ? REDACTED : redactValue(v, alsoMask, depth + 1);
  }
  return out;
}

/** Headers as a plain object, secret ones censored, the rest scrubbed. */
export function redactHeaders(headers: Headers, alsoMask: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((v, name) => {
    out[name] = isSecretField(name) ? REDACTED : scrubString(v, alsoMask);
  });
  return out;
}

function scrubString(text: string, alsoMask: readonly string[]): string {
  let out = scrubText(text);
  // Keys of any shape (an operator-chosen bootstrap key has no recognisable prefix) are masked by value.
  for (const secret of alsoMask) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}
