// Card numbers in any spelling: 15 to 19 digits that pass the Luhn check, written in one run or in groups joined by
// separators (spaces, tabs, newlines, dots, slashes, dashes, underscores, commas, colons, pipes, any number of them;
// the no-break space, the Unicode dashes and the zero-width space too), also as a JSON text escapes them (`\n`, `\t`,
// `\r`, `\/`) and as a URL encodes them (`%20`, `+`, `%2F`, `%2C`, ...). A digit is any Unicode decimal digit (full-width
// `４`, Arabic-Indic `٤`, Devanagari `४`, and every other script's): a person types a number in the digits of their
// keyboard. A masked number keeps only its last four digits; separators stay. 15 digits at least, so millisecond
// timestamps (13 digits until the year 2286) are never taken for one; groups are never split, so a 22-digit card id
// is never a card number, nor is one cut out of a longer run.

const MIN_DIGITS = 15;
const MAX_DIGITS = 19;

/** Digit groups joined by separator runs: one chain, each of whose spans of whole groups may spell a number. */
const SEPARATOR = String.raw`(?:[ \t\r\n._/+,:|\u00a0\u2010-\u2015\u200b-]|\\[ntr/]|%(?:20|09|0[aAdD]|2[bBcCdDeEfF]|5[fF]|3[aA]|7[cC]))`;
const CHAIN = new RegExp(String.raw`\p{Nd}+(?:${SEPARATOR}+\p{Nd}+)*`, 'gu');
const SEPARATOR_RUN = new RegExp(`(${SEPARATOR}+)`, 'u');

// space, tab, LF, CR, '.', '/', '-', '_', '+', ',', ':', '|', no-break space, the Unicode dashes, zero-width space
const isSeparator = (c: number) =>
  c === 32 ||
  c === 9 ||
  c === 10 ||
  c === 13 ||
  c === 46 ||
  c === 47 ||
  c === 45 ||
  c === 95 ||
  c === 43 ||
  c === 44 ||
  c === 58 ||
  c === 124 ||
  c === 0xa0 ||
  (c >= 0x2010 && c <= 0x2015) ||
  c === 0x200b;
// n t r after a backslash, and the escaped slash of JSON ("4111\/1111\/...")
const isEscapedSeparator = (c: number) => c === 110 || c === 116 || c === 114 || c === 47;
const ENCODED_SEPARATORS = new Set(['20', '09', '0A', '0D', '2D', '2E', '2F', '5F', '2B', '2C', '3A', '7C']);
/** The length of a percent-encoded separator at `i` (`%20`, `%2F`, ...), or 0. */
function encodedSeparator(text: string, i: number): number {
  if (text.charCodeAt(i) !== 37) return 0;
  return ENCODED_SEPARATORS.has(text.slice(i + 1, i + 3).toUpperCase()) ? 3 : 0;
}

const NOT_A_DIGIT = 255;
const DECIMAL_DIGIT = /\p{Nd}/u;
/** The value of every decimal digit of the Basic Multilingual Plane by its code, made on first need. */
let bmpDigits: Uint8Array | undefined;
/** Decimal digits beyond it (mathematical, Adlam, ...), by code point, as met. */
const astralDigits = new Map<number, number>();

/**
 * The value of a Unicode decimal digit (0-9), or NOT_A_DIGIT. Unicode encodes every script's digits as runs of ten
 * in order, 0 to 9, runs often adjacent (the mathematical digits are five runs in a row): a digit's value is its
 * distance from the start of its block of consecutive digits, modulo 10.
 */
function digitValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code < 0x660) return NOT_A_DIGIT;
  if (code <= 0xffff) {
    if (!bmpDigits) bmpDigits = digitTable();
    return bmpDigits[code]!;
  }
  let value = astralDigits.get(code);
  if (value === undefined) {
    value = NOT_A_DIGIT;
    if (DECIMAL_DIGIT.test(String.fromCodePoint(code))) {
      let start = code;
      while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start--;
      value = (code - start) % 10;
    }
    // Bounded: there are a few hundred such digits in all.
    if (astralDigits.size < 4096) astralDigits.set(code, value);
  }
  return value;
}

function digitTable(): Uint8Array {
  const table = new Uint8Array(0x10000).fill(NOT_A_DIGIT);
  let runStart = -1;
  for (let code = 0; code <= 0xffff; code++) {
    // Surrogates are halves of astral characters, never digits themselves.
    if (code >= 0xd800 && code <= 0xdfff) {
      runStart = -1;
      continue;
    }
    if (!DECIMAL_DIGIT.test(String.fromCharCode(code))) {
      runStart = -1;
      continue;
    }
    if (runStart < 0) runStart = code;
    table[code] = (code - runStart) % 10;
  }
  return table;
}

/** The digit at `i` (a UTF-16 index): its value and its length in code units (2 for an astral digit); else undefined. */
function digitAt(text: string, i: number): { value: number; units: number } | undefined {
  const c = text.charCodeAt(i);
  if (c >= 48 && c <= 57) return { value: c - 48, units: 1 };
  if (c < 0x660) return undefined;
  const code = text.codePointAt(i)!;
  const value = digitValue(code);
  return value === NOT_A_DIGIT ? undefined : { value, units: code > 0xffff ? 2 : 1 };
}

/**
 * A cheap first look that every text `maskCardNumbers` would change passes: a run of 15 to 19 digits, or a chain of
 * two or more digit groups holding 15 digits or more. Most text (amounts, timestamps, our 22-digit card ids) has
 * neither and is spared the regular expressions. A loop: a regular expression with the look-arounds this needs was
 * slower than the passes it spares.
 */
export function mayHoldCardNumber(text: string): boolean {
  let run = 0; // digits in a row
  let digits = 0; // digits in the current chain
  let groups = 0; // groups in the current chain
  let afterSeparator = false; // a separator followed the last group
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    // ASCII digits inline (most text); others through the digit table, only past the ASCII range.
    const digit = (c >= 48 && c <= 57) || (c >= 0x660 && i < text.length && digitAt(text, i) !== undefined);
    if (digit) {
      if (run === 0) {
        if (!afterSeparator) digits = groups = 0;
        groups++;
      }
      run++;
      digits++;
      afterSeparator = false;
      // An astral digit is two code units: its second half is no separator.
      if (c >= 0xd800 && c <= 0xdbff) i++;
      continue;
    }
    // No group pending (none, or it ended without a separator): a character that is not a digit changes nothing.
    // Most characters of most texts take this turn.
    if (run === 0 && !afterSeparator) continue;
    if (run >= MIN_DIGITS && run <= MAX_DIGITS) return true;
    if (groups >= 2 && digits >= MIN_DIGITS) return true;
    if (isSeparator(c) && (run > 0 || afterSeparator)) {
      afterSeparator = true;
    } else if (c === 92 && (run > 0 || afterSeparator) && isEscapedSeparator(text.charCodeAt(i + 1))) {
      afterSeparator = true;
      i++;
    } else if (c === 37 && (run > 0 || afterSeparator) && encodedSeparator(text, i) > 0) {
      afterSeparator = true;
      i += 2;
    } else {
      afterSeparator = false;
      digits = groups = 0;
    }
    run = 0;
  }
  return false;
}

/** The text with every card number masked. */
export function maskCardNumbers(text: string): string {
  if (!mayHoldCardNumber(text)) return text;
  return text.replace(CHAIN, maskChain);
}

/**
 * Masks every span of whole groups of the chain that spells a Luhn-valid number of 15 to 19 digits (all but its last
 * four digits), so neither the separators nor a neighbouring group ("4549 2403 7220 9645 12") hide one, and a span
 * that passes by chance beside a real number cannot leave part of it in clear.
 */
function maskChain(chain: string): string {
  // A chain too short to hold a number, or one group too long to be one (a 22-digit card id), is left at once.
  if (chain.length < MIN_DIGITS) return chain;
  const parts = chain.split(SEPARATOR_RUN); // groups at even indexes, separator runs between them
  const groups: string[] = [];
  for (let i = 0; i < parts.length; i += 2) groups.push(parts[i]!);
  // Every digit of the chain in one array, and where each group starts in it: a span is checked where it lies,
  // without building its text (a megabyte of short groups made ten million strings). Lengths count digits, not code
  // units (an astral digit is two).
  const lengths = groups.map(digitCount);
  const starts = new Int32Array(groups.length + 1);
  for (let g = 0; g < groups.length; g++) starts[g + 1] = starts[g]! + lengths[g]!;
  const digits = new Uint8Array(starts[groups.length]!);
  for (let g = 0, at = 0; g < groups.length; g++) {
    const group = groups[g]!;
    for (let k = 0; k < group.length;) {
      const d = digitAt(group, k)!;
      digits[at++] = d.value;
      k += d.units;
    }
  }
  // Per group, how many of its leading digits are masked (made only when a span passes: most chains have none).
  let masked: Int32Array | undefined;
  for (let first = 0; first < groups.length; first++) {
    for (let last = first; last < groups.length; last++) {
      const length = starts[last + 1]! - starts[first]!;
      if (length > MAX_DIGITS) break;
      if (length >= MIN_DIGITS && luhnValidAt(digits, starts[first]!, starts[last + 1]!)) {
        masked ??= new Int32Array(groups.length);
        markAllButLastFour(lengths, masked, first, last, length);
      }
    }
  }
  if (!masked) return chain;
  for (let g = 0; g < groups.length; g++) {
    const n = masked[g]!;
    if (n > 0) parts[g * 2] = '*'.repeat(n) + afterDigits(groups[g]!, n);
  }
  return parts.join('');
}

/** Digits in a group of digits (an astral digit is two code units and one digit). */
function digitCount(group: string): number {
  let n = 0;
  for (let k = 0; k < group.length; n++) k += digitAt(group, k)!.units;
  return n;
}

/** The group after its first `n` digits. */
function afterDigits(group: string, n: number): string {
  let k = 0;
  for (let skipped = 0; skipped < n; skipped++) k += digitAt(group, k)!.units;
  return group.slice(k);
}

/**
 * Marks the span's digits but its last four. Within a group the marked digits are always its leading ones (a span
 * ends at a group's end), so a count per group says it; overlapping spans keep the larger count.
 */
function markAllButLastFour(lengths: number[], masked: Int32Array, first: number, last: number, digits: number) {
  let left = digits - 4;
  for (let g = first; g <= last && left > 0; g++) {
    const n = Math.min(left, lengths[g]!);
    if (n > masked[g]!) masked[g] = n;
    left -= n;
  }
}

/** The Luhn check (ISO/IEC 7812-1) of digits[from, to): every second digit from the right doubled, the sum a multiple of 10. */
function luhnValidAt(digits: Uint8Array, from: number, to: number): boolean {
  let sum = 0;
  for (let i = to - 1, odd = false; i >= from; i--, odd = !odd) {
    let d = digits[i]!;
    if (odd) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
