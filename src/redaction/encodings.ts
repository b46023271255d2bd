// The encodings a secret hides in, that redaction looks through: base64 (standard and URL-safe alphabets, any byte
// alignment, inside a longer encoded text such as `Basic base64(user:key)`) and percent-encoding (any character,
// beside escapes that do not decode).

const BASE64_CHAR = /[A-Za-z0-9+/=_-]/;

/**
 * The parts of `value`'s base64 encoding that do not depend on what surrounds it, at each of the three byte
 * alignments it can have inside a longer encoded text, in both alphabets: one of them is in any base64 text holding
 * the value. A part is only the characters whose six bits all come from the value's own bytes.
 */
export function base64Cores(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const cores = new Set<string>();
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(2)]);
    const encoded = padded.toString('base64');
    const first = Math.ceil((8 * offset) / 6);
    const last = Math.floor((8 * (offset + bytes.length)) / 6); // exclusive
    const core = encoded.slice(first, last);
    if (core.length < 4) continue;
    cores.add(core);
    cores.add(core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return [...cores];
}

/** The whole base64 run (standard or URL-safe characters, padding included) around `text[from, to)`. */
export function base64RunAround(text: string, from: number, to: number): [number, number] {
  let start = from;
  let end = to;
  while (start > 0 && BASE64_CHAR.test(text[start - 1]!)) start--;
  while (end < text.length && BASE64_CHAR.test(text[end]!)) end++;
  return [start, end];
}

const ESCAPE_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
const ESCAPE = /%[0-9A-Fa-f]{2}/;

/** Whether the text holds a percent-escape. */
export function hasEscape(text: string): boolean {
  return ESCAPE.test(text);
}

/**
 * The text with every run of percent-escapes decoded as UTF-8, whatever else it holds: a `%ZZ` or a lone `%` stays as
 * it is, and bytes that are not UTF-8 become U+FFFD. `decodeURIComponent` refuses the whole text for one bad escape,
 * which let a key hide beside one.
 */
export function decodeEscapes(text: string): string {
  return text.replace(ESCAPE_RUN, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
}
