import { REDACTED } from '../redaction/redactor.js';
import type { IdMap } from './ids.js';

// One recorded answer against its replay. Divergences are what a partner's code can trip on: the HTTP status, the
// body's `code`, a field present on one side only, a JSON type, a value where the contract fixes the values (an
// enum or a const). Everything else that differs is a value difference, reported apart and never a failure: values
// depend on the account's state. Identifiers are compared through their mapping; redacted recorded values and
// timestamps are compared by presence and type only.

type DivergenceKind = 'status' | 'code' | 'presence' | 'type' | 'enum';

export interface Divergence {
  kind: DivergenceKind;
  /** JSON pointer into the body (`/cardList/0/cardStatus`), or `status`. */
  pointer: string;
  recorded: string;
  replayed: string;
}

export interface ValueDifference {
  pointer: string;
  recorded: string;
  replayed: string;
}

export interface Answer {
  status: number;
  /** Parsed JSON, text, or null when empty; undefined when the body was not recorded. */
  body: unknown;
}

export interface Comparison {
  divergences: Divergence[];
  values: ValueDifference[];
}

/** The values the contract allows at a pointer of this answer, or undefined when it does not fix them. */
export type EnumLookup = (pointer: string) => unknown[] | undefined;

const MAX_SHOWN = 200;
const MAX_DEPTH = 64;

/** A value as short readable text (JSON), or `(absent)`. */
function shown(value: unknown): string {
  const text = value === undefined ? '(absent)' : JSON.stringify(value);
  return text.length > MAX_SHOWN ? text.slice(0, MAX_SHOWN - 3) + '...' : text;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A card number as the recording masked it (`************1234`, `**** **** **** 1234`), or `[REDACTED]` inside. */
export function isRedacted(value: unknown): boolean {
  return typeof value === 'string' && (value.includes(REDACTED) || /^[*\s./_-]*\*[*\s./_-]*\d{4}$/.test(value));
}

/** ISO 8601 date-times and dates: the replay runs at another time, so these never differ as values. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
/** Names of numeric fields that hold an instant (Unix seconds or milliseconds). */
const TIME_NAME = /^(?:created|time|timestamp)$|(?:At|Time|Ms|Seconds)$/;

function isTime(value: unknown, key: string): boolean {
  return (typeof value === 'string' && TIMESTAMP.test(value)) || (typeof value === 'number' && TIME_NAME.test(key));
}

const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

export function compareAnswers(
  recorded: Answer,
  replayed: Answer,
  ids: IdMap,
  enums: EnumLookup,
  /** Pointers whose values the replay decides itself (the clock's mode): never compared. */
  ignored: readonly RegExp[] = [],
): Comparison {
  const out: Comparison = { divergences: [], values: [] };
  if (recorded.status !== replayed.status) {
    out.divergences.push({
      kind: 'status',
      pointer: 'status',
      recorded: String(recorded.status),
      replayed: String(replayed.status),
    });
    ids.noteAnswer(recorded.body);
    return out;
  }
  if (recorded.body === undefined) return out; // not recorded (over 1 MiB): the status is all there is to compare
  const codeOf = (b: unknown) =>
    b !== null && typeof b === 'object' && !Array.isArray(b) ? (b as { code?: unknown }).code : undefined;
  const [rc, pc] = [codeOf(recorded.body), codeOf(replayed.body)];
  if (rc !== pc) {
    out.divergences.push({ kind: 'code', pointer: '/code', recorded: shown(rc), replayed: shown(pc) });
    ids.noteAnswer(recorded.body);
    return out;
  }
  walk(recorded.body, replayed.body, '', '', 0, { ids, enums, out, ignored });
  return out;
}

interface WalkContext {
  ids: IdMap;
  enums: EnumLookup;
  out: Comparison;
  ignored: readonly RegExp[];
}

function walk(rec: unknown, rep: unknown, pointer: string, key: string, depth: number, cx: WalkContext): void {
  if (depth > MAX_DEPTH || isRedacted(rec) || isRedacted(rep) || cx.ignored.some((re) => re.test(pointer))) return;
  const [rt, pt] = [jsonType(rec), jsonType(rep)];
  const at = pointer || '/';
  if (rt !== pt) {
    cx.out.divergences.push({
      kind: 'type',
      pointer: at,
      recorded: `${shown(rec)} (${rt})`,
      replayed: `${shown(rep)} (${pt})`,
    });
    cx.ids.noteAnswer(rec);
    return;
  }
  if (rt === 'object') {
    const r = rec as Record<string, unknown>;
    const p = rep as Record<string, unknown>;
    for (const k of new Set([...Object.keys(r), ...Object.keys(p)])) {
      const child = `${pointer}/${escape(k)}`;
      if (!Object.hasOwn(p, k)) {
        cx.out.divergences.push({ kind: 'presence', pointer: child, recorded: shown(r[k]), replayed: '(absent)' });
        cx.ids.noteAnswer(r[k]);
      } else if (!Object.hasOwn(r, k)) {
        cx.out.divergences.push({ kind: 'presence', pointer: child, recorded: '(absent)', replayed: shown(p[k]) });
      } else if (!(pointer === '' && k === 'code')) {
        walk(r[k], p[k], child, k, depth + 1, cx);
      }
    }
    return;
  }
  if (rt === 'array') {
    const r = rec as unknown[];
    const p = rep as unknown[];
    for (let i = 0; i < Math.min(r.length, p.length); i++) walk(r[i], p[i], `${pointer}/${i}`, key, depth + 1, cx);
    for (const extra of r.slice(p.length)) cx.ids.noteAnswer(extra);
    if (r.length !== p.length) {
      const items = (n: number) => `${n} ${n === 1 ? 'item' : 'items'}`;
      cx.out.values.push({ pointer: at, recorded: items(r.length), replayed: items(p.length) });
    }
    return;
  }
  if (typeof rec === 'string' && cx.ids.same(rec, rep)) return;
  if (rec === rep || rt === 'null' || (isTime(rec, key) && isTime(rep, key))) return;
  const allowed = cx.enums(at);
  if (allowed) cx.out.divergences.push({ kind: 'enum', pointer: at, recorded: shown(rec), replayed: shown(rep) });
  else cx.out.values.push({ pointer: at, recorded: shown(rec), replayed: shown(rep) });
}
