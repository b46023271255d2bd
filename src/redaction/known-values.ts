import { base64Cores, base64RunAround } from './encodings.js';

// Redaction by value and by encoding: the secrets a redactor knows (the admin token, the bootstrap key, the key of a
// recorded request, what a proxy saw go by), found in any letter case, JSON-escaped, percent-encoded and in base64;
// and the shapes' prefixes (`sk_sandbox_`, `whsec_`) in base64, whose whole encoded run is masked.

/** The shapes' prefixes in base64, in either letter case: a base64 run holding one is masked whole. */
const SHAPES_IN_BASE64 = ['sk_sandbox_', 'SK_SANDBOX_', 'whsec_', 'WHSEC_']
  .flatMap(base64Cores)
  .map((core) => core.replace(/[+/]/g, '\\$&'))
  .join('|');
const SHAPE_IN_BASE64 = new RegExp(SHAPES_IN_BASE64);
const SHORTEST_SHAPE_CORE = Math.min(...SHAPES_IN_BASE64.split('|').map((core) => core.replace(/\\/g, '').length));

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Each value's forms, worked out once: the same few values (the server's, a request's key) come back per record. */
const formsCache = new Map<string, { forms: string[]; base64: string[] }>();
const FORMS_CACHED = 1_000;

function formsOf(value: string): { forms: string[]; base64: string[] } {
  let cached = formsCache.get(value);
  if (!cached) {
    cached = {
      forms: [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)].map((f) => f.toLowerCase()),
      base64: base64Cores(value),
    };
    // Bounded: the oldest goes first (a proxy learns many values; a server holds a few).
    if (formsCache.size >= FORMS_CACHED) formsCache.delete(formsCache.keys().next().value!);
    formsCache.set(value, cached);
  }
  return cached;
}

export class KnownValues {
  /** Each value in every form it is looked for, in lower case, longest first (a value inside another after it). */
  private readonly forms: readonly string[];
  /** The shortest thing looked for: a shorter text holds none (most texts of a record are short). */
  private readonly shortest: number;
  /** The values' base64 parts (base64 is case-sensitive). */
  private readonly base64: readonly string[];

  constructor(
    values: readonly string[],
    private readonly mask: string,
  ) {
    const forms = new Set<string>();
    const base64 = new Set<string>();
    for (const value of values) {
      const of = formsOf(value);
      for (const form of of.forms) forms.add(form);
      for (const core of of.base64) base64.add(core);
    }
    this.forms = [...forms].sort((a, b) => b.length - a.length);
    this.base64 = [...base64];
    this.shortest = Math.min(
      SHORTEST_SHAPE_CORE,
      ...this.forms.map((f) => f.length),
      ...this.base64.map((c) => c.length),
    );
  }

  /** Whether the text holds a known value (in any form) or a shape's prefix in base64. */
  holds(text: string): boolean {
    if (text.length < this.shortest) return false;
    if (SHAPE_IN_BASE64.test(text)) return true;
    if (this.forms.length === 0) return false;
    const lower = text.toLowerCase();
    for (const form of this.forms) if (lower.includes(form)) return true;
    for (const core of this.base64) if (text.includes(core)) return true;
    return false;
  }

  /** The text with every known value, and every base64 run holding one or a shape's prefix, masked. */
  masked(text: string): string {
    return this.maskBase64(this.maskValues(text));
  }

  /** Every known value masked, in whatever letter case it is written. */
  private maskValues(text: string): string {
    if (this.forms.length === 0) return text;
    let lower = text.toLowerCase();
    // A few characters change length when lower-cased (`İ`): then positions in the two texts differ, so such a text
    // is searched form by form with a case-insensitive expression instead.
    if (lower.length !== text.length) {
      let out = text;
      for (const form of this.forms) out = out.replace(new RegExp(escapeRegExp(form), 'gi'), this.mask);
      return out;
    }
    const maskLower = this.mask.toLowerCase();
    let out = text;
    for (const form of this.forms) {
      let at = lower.indexOf(form);
      if (at < 0) continue;
      let masked = '';
      let maskedLower = '';
      let copied = 0;
      for (; at >= 0; at = lower.indexOf(form, at + form.length)) {
        masked += out.slice(copied, at) + this.mask;
        maskedLower += lower.slice(copied, at) + maskLower;
        copied = at + form.length;
      }
      out = masked + out.slice(copied);
      lower = maskedLower + lower.slice(copied);
    }
    return out;
  }

  /** Every base64 run holding a key's or a webhook secret's prefix, or a known value, masked whole. */
  private maskBase64(text: string): string {
    let out = text;
    if (SHAPE_IN_BASE64.test(out)) {
      const shapes = new RegExp(SHAPES_IN_BASE64, 'g');
      for (let m = shapes.exec(out); m; m = shapes.exec(out)) {
        const [start, end] = base64RunAround(out, m.index, m.index + m[0].length);
        out = out.slice(0, start) + this.mask + out.slice(end);
        shapes.lastIndex = start + this.mask.length;
      }
    }
    for (const core of this.base64) {
      for (let at = out.indexOf(core); at >= 0; at = out.indexOf(core, at)) {
        const [start, end] = base64RunAround(out, at, at + core.length);
        out = out.slice(0, start) + this.mask + out.slice(end);
        at = start + this.mask.length;
      }
    }
    return out;
  }
}
