// Card numbers in any spelling: 15 to 19 digits that pass the Luhn check, written in one run or in groups joined by
// separators (spaces, tabs, newlines, dots, slashes, dashes, underscores, any number of them; the no-break space, the
// Unicode dashes and the zero-width space too), also as a JSON text escapes them (`\n`, `\t`, `\r`, `\/`) and as a
// URL encodes them (`%20`, `+`, `%2F`, ...). A masked number keeps only its last four digits; separators stay.
// 15 digits at least, so millisecond timestamps (13 digits until the year 2286) are never taken for one; groups are
// never split, so a 22-digit card id is never a card number, nor is one cut out of a longer run.

const MIN_DIGITS = 15;
const MAX_DIGITS = 19;

/** Digit groups joined by separator runs: one chain, each of whose spans of whole groups may spell a number. */
const SEPARATOR = String.raw`(?:[ \t\r\n._/+\u00a0\u2010-\u2015\u200b-]|\\[ntr/]|%(?:20|09|0[aAdD]|2[dDeEfF]|5[fF]|2[bB]))`;
const CHAIN = new RegExp(String.raw`\d+(?:${SEPARATOR}+\d+)*`, 'g');
const SEPARATOR_RUN = new RegExp(`(${SEPARATOR}+)`);

const isDigit = (c: number) => c >= 48 && c <= 57;
// space, tab, LF, CR, '.', '/', '-', '_', '+', no-break space, the Unicode dashes, zero-width space
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
  c === 0xa0 ||
  (c >= 0x2010 && c <= 0x2015) ||
  c === 0x200b;
// n t r after a backslash, and the escaped slash of JSON ("4111\/1111\/...")
const isEscapedSeparator = (c: number) => c === 110 || c === 116 || c === 114 || c === 47;
/** The length of a percent-encoded separator at `i` (`%20`, `%2F`, ...), or 0. */
function encodedSeparator(text: string, i: number): number {
  if (text.charCodeAt(i) !== 37) return 0;
  const code = text.slice(i + 1, i + 3).toUpperCase();
  return ['20', '09', '0A', '0D', '2D', '2E', '2F', '5F', '2B'].includes(code) ? 3 : 0;
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
    if (isDigit(c)) {
      if (run === 0) {
        if (!afterSeparator) digits = groups = 0;
        groups++;
      }
      run++;
      digits++;
      afterSeparator = false;
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
  // without building its text (a megabyte of short groups made ten million strings).
  const starts = new Int32Array(groups.length + 1);
  for (let g = 0; g < groups.length; g++) starts[g + 1] = starts[g]! + groups[g]!.length;
  const digits = new Uint8Array(starts[groups.length]!);
  for (let g = 0, at = 0; g < groups.length; g++) {
    for (let k = 0; k < groups[g]!.length; k++) digits[at++] = groups[g]!.charCodeAt(k) - 48;
  }
  // Per group, how many of its leading digits are masked (made only when a span passes: most chains have none).
  let masked: Int32Array | undefined;
  for (let first = 0; first < groups.length; first++) {
    for (let last = first; last < groups.length; last++) {
      const length = starts[last + 1]! - starts[first]!;
      if (length > MAX_DIGITS) break;
      if (length >= MIN_DIGITS && luhnValidAt(digits, starts[first]!, starts[last + 1]!)) {
        masked ??= new Int32Array(groups.length);
        markAllButLastFour(groups, masked, first, last, length);
      }
    }
  }
  if (!masked) return chain;
  for (let g = 0; g < groups.length; g++) {
    const n = masked[g]!;
    if (n > 0) parts[g * 2] = '*'.repeat(n) + groups[g]!.slice(n);
  }
  return parts.join('');
}

/**
 * Marks the span's digits but its last four. Within a group the marked digits are always its leading ones (a span
 * ends at a group's end), so a count per group says it; overlapping spans keep the larger count.
 */
function markAllButLastFour(groups: string[], masked: Int32Array, first: number, last: number, digits: number) {
  let left = digits - 4;
  for (let g = first; g <= last && left > 0; g++) {
    const n = Math.min(left, groups[g]!.length);
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
