// Secrets must never reach a log line. Two layers, because either alone has holes:
// - by field name: any field whose name says "secret" is censored wherever it sits in a record (headers, bodies,
//   nested error objects), which is the only way to catch short values such as a CVV or an OTP;
// - by shape: the final text of every line is scanned for values recognisable on sight (webhook secrets, our API
//   keys, Luhn-valid card numbers), which catches them inside messages and error stacks.

export const REDACTED = '[REDACTED]';

/** Field names (case-insensitive) whose values are censored in every log record, at any depth. */
const SECRET_FIELD =
  /secret|password|passwd|token|api[-_]?key|authorization|cookie|signature|^(cvv|cvc|cvv2|otp|pan|card_?no|card_?number|expiry_?date)$/i;

export function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name);
}

const MAX_DEPTH = 8;

/** A copy of a log record with secret fields censored; Errors become plain objects so their fields are walked too. */
export function redactFields(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[Truncated]';
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1));
  if (value instanceof Error) {
    const plain: Record<string, unknown> = {
      type: value.constructor?.name ?? value.name,
      message: value.message,
      stack: value.stack,
    };
    for (const [k, v] of Object.entries(value)) plain[k] = v;
    if (value.cause !== undefined) plain.cause = value.cause;
    return redactFields(plain, depth);
  }
  if (value instanceof Headers) return redactFields(Object.fromEntries(value.entries()), depth);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSecretField(k) ? REDACTED : redactFields(v, depth + 1);
  return out;
}

const WEBHOOK_SECRET = /whsec_[A-Za-z0-9_-]+/g;
const SANDBOX_API_KEY = /sk_sandbox_[A-Za-z0-9]+/g;
// 15 to 19 digits not touching other digits: card numbers, but neither millisecond timestamps (13 digits until
// the year 2286) nor our 22-digit card ids.
const DIGIT_RUN = /(?<!\d)\d{15,19}(?!\d)/g;
// Digit groups joined by single spaces or dashes, as card numbers are written by hand ("4549 2403 7220 9645").
const GROUPED_DIGITS = /\d+(?:[ -]\d+)+/g;

/**
 * A cheap first look that every text the patterns below would change passes: a run of 15 to 19 digits, or a
 * stretch of digits, spaces and dashes holding 15 or more digits with a separator between two of them. Most text
 * (timestamps, amounts, our 22-digit card ids) has neither and is left as it is after one pass instead of four.
 * A loop, not a regular expression: with the look-behind this needs, a regular expression was slower than the
 * four passes it spares.
 */
function mayHoldCardNumber(text: string): boolean {
  let group = 0; // digits in a row
  let digits = 0; // digits in the current stretch of digits, spaces and dashes
  let joined = false; // the stretch has a separator between two digits
  let afterDigitAndSeparator = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    if (c >= 48 && c <= 57) {
      group++;
      digits++;
      if (afterDigitAndSeparator) joined = true;
      afterDigitAndSeparator = false;
      continue;
    }
    if (group >= 15 && group <= 19) return true;
    if (c === 32 || c === 45) {
      afterDigitAndSeparator = group > 0;
      group = 0;
      continue;
    }
    if (joined && digits >= 15) return true;
    group = digits = 0;
    joined = afterDigitAndSeparator = false;
  }
  return false;
}

/** The text with every recognisable secret masked; a masked card number keeps only its last four digits. */
export function scrubText(text: string): string {
  if (!mayHoldCardNumber(text) && !text.includes('whsec_') && !text.includes('sk_sandbox_')) return text;
  return text
    .replace(WEBHOOK_SECRET, 'whsec_' + REDACTED)
    .replace(SANDBOX_API_KEY, 'sk_sandbox_' + REDACTED)
    .replace(GROUPED_DIGITS, maskGroupedCardNumbers)
    .replace(DIGIT_RUN, (run) => (luhnValid(run) ? maskDigits(run) : run));
}

/**
 * Masks every run of whole groups that spells a Luhn-valid 15 to 19 digit number, so that neither the separators
 * nor a neighbouring group ("4549 2403 7220 9645 12") hide a card number. Groups are never split: a card number
 * written by hand is grouped on its own boundaries.
 */
function maskGroupedCardNumbers(run: string): string {
  const parts = run.split(/([ -])/); // groups at even indexes, separators between them
  for (let first = 0; first < parts.length; first += 2) {
    let digits = '';
    for (let last = first; last < parts.length; last += 2) {
      digits += parts[last];
      if (digits.length > 19) break;
      if (digits.length >= 15 && luhnValid(digits)) {
        const masked = maskDigits(parts.slice(first, last + 1).join(''));
        parts.splice(first, last + 1 - first, masked);
        break;
      }
    }
  }
  return parts.join('');
}

/** Every digit but the last four becomes '*'; separators stay. */
function maskDigits(text: string): string {
  let keep = 4;
  let out = '';
  for (let i = text.length - 1; i >= 0; i--) {
    const isDigit = text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57;
    out = (isDigit && keep-- <= 0 ? '*' : text[i]) + out;
  }
  return out;
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
