import { mayHoldCardNumber, maskCardNumbers } from './card-numbers.js';
import { decodeEscapes, hasEscape } from './encodings.js';
import { KnownValues } from './known-values.js';
import { censorMarkup } from './markup.js';
import { isSecretName } from './secret-names.js';

// Redaction by value: the one mechanism behind the request log, the server log, the console and the proxy's
// outputs (docs/design.md, "Redaction by value"). A secret is found wherever it sits (the path, the query, any
// header, any body field, a message) by what it is, not only by where it is expected:
// - by shape: our API keys (`sk_sandbox_...`), webhook secrets (`whsec_...`), in any letter case and in base64, card
//   numbers in any spelling (card-numbers.ts);
// - by value: the secrets the caller knows (the admin token, the bootstrap key, the key of the request being
//   recorded, the keys and secrets a proxy saw go by), in every form a text may carry them (as written in any letter
//   case, JSON-escaped, percent-encoded, base64);
// - by name: a value under a secret name (secret-names.ts) is censored whole, whatever it holds: the only way to
//   find short secrets such as a CVV or an OTP; in XML elements and multipart parts too (markup.ts).
// Whatever a text percent-encodes is read decoded as well (encodings.ts): a secret found there is shown decoded and
// masked, and a URL part that does not decode at all is masked whole, never kept raw.

export const REDACTED = '[REDACTED]';

const API_KEY = /sk_sandbox_[A-Za-z0-9]+/gi;
const WEBHOOK_SECRET = /whsec_[A-Za-z0-9_-]+/gi;
const SHAPE_PREFIX = /sk_sandbox_|whsec_/i;
/** Cheap look for an XML element or a multipart part that may be named as a secret (markup.ts does the work). */
const MARKUP_HINT = /<\/|form-data/i;
/** One scan for what sends a text the slow way: a shape's prefix, a percent-escape, markup. */
const SLOW_WAY = /sk_sandbox_|whsec_|%[0-9A-Fa-f]{2}|<\/|form-data/i;
/**
 * A name and its `=` or `:` in free text (`name=value`, `name: value`, `"name":"value"`: a query string, a header
 * value, a message). The name's quote is captured so that a bare value after a JSON key is replaced by a quoted one
 * and JSON stays JSON.
 */
// A name starts only where a word starts (the look-behind) and is at most 128 characters: without both, a long word not
// followed by `=` was rescanned from each of its letters, and 40 KB of text took seconds (quadratic).
const NAME_THEN_SEPARATOR = /(?<![A-Za-z0-9_.-])(["']?)([A-Za-z][A-Za-z0-9_.-]{0,127})\1\s*[:=]\s*/g;
/**
 * A cheap look for a secret name (secret-names.ts) before a `:` or `=`; the named-value pass and a body's structural
 * pass run only then. Written to miss no such name, and to pass over the names every answer has (`code`, `cardId`,
 * `maskedCardNo`, `keyId`).
 */
const SECRET_WORDS =
  '(?:(?:secret|password|passwd|passphrase|token|api[-_.]?key|authorization|cookie|signature|private[-_.]?key' +
  '|cvv|cvc|cvn|card[-_.]?code|security[-_.]?code)[\\w.-]{0,64}' +
  '|csc|cvd|cv2|cav2|cid2?|verification[-_.]?(?:code|value)|otp' +
  '|one[-_.]?time[-_.]?(?:password|code)|pan|(?<!masked)card[-_.]?(?:no|num|number)|(?:pan|account)[-_.]?number' +
  '|expir[\\w.-]{0,32}date)';
const NAME_HINT = new RegExp(`${SECRET_WORDS}["']?\\s*[:=]`, 'i');
/** An XML element or a multipart part named with a secret word (then markup.ts looks at it properly). */
const MARKUP_NAME_HINT = new RegExp(`<[\\w.:-]{0,64}${SECRET_WORDS}|name\\s*=\\s*"[\\w.-]{0,64}${SECRET_WORDS}`, 'i');
/** Levels of percent-encoding looked through (`%2573` is `%73` is `s`). */
const DECODE_LEVELS = 3;
/** Values shorter than this are never masked by value: they would mask ordinary text. */
const MIN_VALUE_LENGTH = 8;
const MAX_DEPTH = 32;
/** Field names a redactor remembers how it redacts (`name`): enough for every name the server itself logs. */
const NAMES_REMEMBERED = 1_000;
/** Integers this large may be card numbers sent as bare JSON numbers. */
const LONG_NUMBER = 1e14;

export class Redactor {
  private readonly known: KnownValues;
  private readonly values: readonly string[];
  /** Field names as `text` redacts them: the same few names come back on every record (bounded). */
  private readonly names = new Map<string, string>();

  constructor(values: Iterable<string | null | undefined> = []) {
    const kept: string[] = [];
    for (const value of values) if (typeof value === 'string' && value.length >= MIN_VALUE_LENGTH) kept.push(value);
    this.known = new KnownValues(kept, REDACTED);
    this.values = kept;
  }

  /** The values this redactor masks by value (to build the same redactor elsewhere: the log's worker thread). */
  knownValues(): string[] {
    return [...this.values];
  }

  /** A redactor that masks these values as well as this one's. */
  with(values: Iterable<string | null | undefined>): Redactor {
    return new Redactor([...this.values, ...values]);
  }

  /** Whether the text may hold something to redact; false means `text()` would return it as it is. */
  mayHold(text: string): boolean {
    return (
      mayHoldCardNumber(text) ||
      NAME_HINT.test(text) ||
      this.known.holds(text) ||
      (SLOW_WAY.test(text) &&
        (SHAPE_PREFIX.test(text) || hasEscape(text) || (MARKUP_HINT.test(text) && MARKUP_NAME_HINT.test(text))))
    );
  }

  /**
   * Free text with every secret masked: known values, keys, webhook secrets (as written, in any case, in base64), card
   * numbers, named values (`name=value`, XML elements, multipart parts), and whatever its percent-escapes hide.
   */
  text(text: string): string {
    if (!this.mayHold(text)) return text;
    const out = this.maskAsWritten(text);
    // What percent-escapes hide, read decoded: where that holds a secret, the decoded text masked is what is shown.
    let decoded = out;
    for (let level = 0; level < DECODE_LEVELS && hasEscape(decoded); level++) decoded = decodeEscapes(decoded);
    if (decoded !== out) {
      const masked = this.maskAsWritten(decoded);
      if (masked !== decoded) return masked;
    }
    return out;
  }

  private maskAsWritten(text: string): string {
    let out = this.known.masked(text);
    if (SHAPE_PREFIX.test(out)) {
      out = out.replace(API_KEY, (key) => `${key.slice(0, 11)}${REDACTED}`);
      out = out.replace(WEBHOOK_SECRET, (secret) => `${secret.slice(0, 6)}${REDACTED}`);
    }
    out = maskCardNumbers(out);
    if (NAME_HINT.test(out)) out = censorNamedValues(out);
    if (MARKUP_HINT.test(out) && MARKUP_NAME_HINT.test(out)) out = censorMarkup(out, REDACTED);
    return out;
  }

  /**
   * A copy of a parsed JSON value with every secret redacted: a field under a secret name censored whole, every
   * string (keys included) redacted as text, and an integer long enough to be a card number masked (as a string).
   */
  value(value: unknown, depth = 0): unknown {
    if (typeof value === 'string') return this.text(value);
    if (typeof value === 'number') return this.number(value);
    if (value === null || typeof value !== 'object') return value;
    if (depth >= MAX_DEPTH) return '[Truncated]';
    if (Array.isArray(value)) return value.map((v) => this.value(v, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[this.name(k)] = isSecretName(k) && v !== null ? REDACTED : this.value(v, depth + 1);
    }
    return out;
  }

  /**
   * JSON text redacted through its structure (so a bare-number card number or a CVV under its name is found), as
   * JSON text again; undefined when the text is not JSON.
   */
  jsonText(text: string): string | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    return JSON.stringify(this.value(parsed));
  }

  /**
   * Header names and values as a plain object with lower-case names (repeats joined as `Headers` joins them): a
   * header under a secret name censored, every other value redacted as text. Takes node's alternating raw list or
   * a record.
   */
  headers(headers: readonly string[] | Record<string, string | string[] | undefined>): Record<string, string> {
    // No prototype: a header named `__proto__` is then an ordinary key.
    const out = Object.create(null) as Record<string, string>;
    const add = (rawName: string, rawValue: string) => {
      const name = this.text(rawName.toLowerCase());
      if (name.startsWith(':')) return; // HTTP/2 pseudo-headers
      const value = isSecretName(name) ? REDACTED : this.text(rawValue);
      const seen = out[name];
      out[name] = seen === undefined ? value : seen + (name === 'cookie' ? '; ' : ', ') + value;
    };
    if (Array.isArray(headers)) {
      for (let i = 0; i + 1 < headers.length; i += 2) add(headers[i]!, headers[i + 1]!);
    } else {
      for (const [name, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) add(name, v);
      }
    }
    return out;
  }

  /**
   * A request target (path and query) with every secret masked: path segments redacted as written and as decoded
   * (`%20` is a space between the groups of a card number), a query parameter under a secret name censored, every
   * other parameter redacted as text.
   */
  url(target: string): string {
    const q = target.indexOf('?');
    const path = q < 0 ? target : target.slice(0, q);
    const query = q < 0 ? undefined : target.slice(q + 1);
    const maskedPath = path
      .split('/')
      .map((segment) => this.decodedText(segment))
      .join('/');
    if (query === undefined) return maskedPath;
    const maskedQuery = query
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        const name = eq < 0 ? pair : pair.slice(0, eq);
        const maskedName = this.decodedText(name);
        if (eq < 0) return maskedName;
        const value = isSecretName(decode(name) ?? name) ? REDACTED : this.decodedText(pair.slice(eq + 1));
        return `${maskedName}=${value}`;
      })
      .join('&');
    return `${maskedPath}?${maskedQuery}`;
  }

  /**
   * A URL component redacted as written; when its decoded form holds a secret, that form redacted. A component that
   * does not decode (a bad escape such as `%ZZ`) is read with its good escapes decoded; one whose bytes are not even
   * UTF-8 is masked whole: what cannot be read is not kept raw.
   */
  private decodedText(component: string): string {
    const decoded = decode(component);
    if (decoded === undefined) {
      const loose = decodeEscapes(component.replace(/\+/g, ' '));
      if (loose.includes('\ufffd') && !component.includes('\ufffd')) return REDACTED;
      const masked = this.text(loose);
      return masked !== loose ? masked : this.text(component);
    }
    if (decoded !== component) {
      const masked = this.text(decoded);
      if (masked !== decoded) return masked;
    }
    return this.text(component);
  }

  /** A field name redacted as text, remembered while there are few: a name is text like any other. */
  private name(key: string): string {
    let masked = this.names.get(key);
    if (masked === undefined) {
      masked = this.text(key);
      if (this.names.size < NAMES_REMEMBERED && key.length <= 64) this.names.set(key, masked);
    }
    return masked;
  }

  private number(value: number): unknown {
    if (!Number.isInteger(value) || Math.abs(value) < LONG_NUMBER) return value;
    const text = BigInt(value).toString();
    const masked = maskCardNumbers(text);
    return masked === text ? value : masked;
  }
}

/** Every value written after a secret name in free text censored (a quoted one to its closing quote). */
function censorNamedValues(text: string): string {
  let out = '';
  let copied = 0;
  NAME_THEN_SEPARATOR.lastIndex = 0;
  for (let m = NAME_THEN_SEPARATOR.exec(text); m; m = NAME_THEN_SEPARATOR.exec(text)) {
    if (!isSecretName(m[2]!)) continue;
    const start = NAME_THEN_SEPARATOR.lastIndex;
    const quoted = text[start] === '"';
    const end = quoted ? closingQuote(text, start + 1) + 1 : bareValueEnd(text, start);
    // Already censored (by the structural pass, or an earlier one of these): left as it is.
    if (end === start || text.startsWith(REDACTED, start) || text.startsWith(`"${REDACTED}"`, start)) continue;
    // A bare value after a JSON key ("cvv":123) is replaced by a string, so the text stays JSON.
    const replacement = quoted || m[1] === '"' ? `"${REDACTED}"` : REDACTED;
    out += text.slice(copied, start) + replacement;
    copied = end;
    NAME_THEN_SEPARATOR.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The index of the quote closing a string that starts at `from`, or the text's end. */
function closingQuote(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}

/** Where a bare value starting at `from` ends: at a delimiter of query strings, cookies, lists or JSON. */
function bareValueEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && !'"&;,}] \t\r\n'.includes(text[i]!)) i++;
  return i;
}

/** The component percent-decoded (`+` a space); undefined when it does not decode (a bad escape, bytes not UTF-8). */
function decode(component: string): string | undefined {
  if (!component.includes('%') && !component.includes('+')) return component;
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
