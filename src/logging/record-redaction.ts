import { isSecretField, REDACTED, scrubText } from './redaction.js';

// The request log stores bodies and headers, so they get the logs' two layers of redaction: by field name (on the
// JSON structure) and by shape (on the final text). Both are applied so the stored text stays JSON: a card number
// sent as a bare JSON number is turned into a masked string by the structural pass before the text pass runs.
// The structural pass (parse, walk, serialise) is the costly one, so it runs only on text that may need it.

/** A field name the logs censor, written as a JSON key; or a \u escape, which could spell one in disguise. */
const SECRET_KEY_IN_JSON =
  /(?:secret|password|passwd|token|api[-_]?key|authorization|cookie|signature)[^"]*"\s*:|"(?:cvv|cvc|cvv2|otp|pan|card_?no|card_?number|expiry_?date)"\s*:|\\u/i;
/** A bare JSON number long enough to be a card number (in any notation). */
const LONG_BARE_NUMBER = /[:[,]\s*-?\d[\d.eE+-]{14,}/;

/** Whether JSON text may hold a field the logs censor by name, or a card number as a bare number. */
export function needsStructuralRedaction(jsonText: string): boolean {
  return SECRET_KEY_IN_JSON.test(jsonText) || LONG_BARE_NUMBER.test(jsonText);
}

const MAX_DEPTH = 32;
const LONG_NUMBER = 1e14;

/** A copy of a parsed JSON value with secret fields censored and long (card-number-like) numbers masked. */
export function redactStructure(value: unknown, depth = 0): unknown {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || Math.abs(value) < LONG_NUMBER) return value;
    const text = BigInt(value).toString();
    const scrubbed = scrubText(text);
    return scrubbed === text ? value : scrubbed;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[Truncated]';
  if (Array.isArray(value)) return value.map((v) => redactStructure(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = secretName(k) ? REDACTED : redactStructure(v, depth + 1);
  return out;
}

/** Header names repeat on every request: the name test is remembered (bounded). */
const nameCache = new Map<string, boolean>();

function secretName(name: string): boolean {
  let hit = nameCache.get(name);
  if (hit === undefined) {
    if (nameCache.size >= 10_000) nameCache.clear();
    nameCache.set(name, (hit = isSecretField(name)));
  }
  return hit;
}

/**
 * Header names and values (alternating, as node's `rawHeaders`) as a plain object with lower-case names, repeats
 * joined as `Headers` joins them, the secret ones censored (their values are scrubbed with the whole record).
 */
export function censorHeaderList(list: readonly string[]): Record<string, string> {
  // No prototype: a header named `__proto__` is then an ordinary key.
  const out = Object.create(null) as Record<string, string>;
  for (let i = 0; i + 1 < list.length; i += 2) {
    const name = list[i]!.toLowerCase();
    if (name.startsWith(':')) continue; // HTTP/2 pseudo-headers
    const value = secretName(name) ? REDACTED : list[i + 1]!;
    const seen = out[name];
    out[name] = seen === undefined || seen === REDACTED ? value : seen + (name === 'cookie' ? '; ' : ', ') + value;
  }
  return out;
}

/**
 * The shape pass over a record's final JSON text: webhook secrets, API keys and Luhn-valid card numbers masked
 * wherever they sit (only inside strings by then), and the given values (the caller's own key, whatever its
 * shape) too, as written and as JSON escapes them.
 */
export function scrubRecordText(jsonText: string, alsoMask: readonly string[] = []): string {
  let out = scrubText(jsonText);
  for (const secret of alsoMask) {
    for (const form of new Set([secret, JSON.stringify(secret).slice(1, -1)])) {
      if (out.includes(form)) out = out.split(form).join(REDACTED);
    }
  }
  return out;
}
