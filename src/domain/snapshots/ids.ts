import { takenValues } from '../../store/snapshot.js';
import type { Deps } from '../kernel/deps.js';
import type { Ids } from '../kernel/ids.js';
import type { SnapshotDocument } from './export.js';
import { fieldOf, GLOBAL_IDS, SNAPSHOT_SECTIONS } from './format.js';

// A snapshot loaded beside other accounts keeps its ids where they are free. One another account already has (always,
// for a copy of an account on its own server) is replaced by a new id of the same shape, everywhere the document
// names it: its rows, the rows that refer to it, the ledger accounts and counters named after it (`card:<id>`,
// `txn-card:<id>`), the timers waiting on it and the events' data. Ids are long random strings, so a value equal to
// one (or a `:`-separated part equal to one) is that id.

/** A new id shaped as `old`: a card's keeps its issue date (its first 8 digits), a prefixed one its prefix. */
function freshLike(ids: Ids, old: string): string {
  if (/^\d{22}$/.test(old)) return old.slice(0, 8) + ids.digits(14);
  const m = /^([A-Za-z0-9]+_)([0-9A-Za-z]+)$/.exec(old);
  return m ? m[1]! + ids.base62(m[2]!.length) : ids.internalId('snap');
}

/** Every string of `value` with its ids replaced; other values as they are. */
function mapStrings(value: unknown, map: (s: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, map));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, map)]));
  }
  return value;
}

/** A document's ids as they load: the account's replaced by the target's, each id another account holds by a new one. */
export interface IdRemap {
  /** Ids the target already had, old to new (the account's aside). */
  changed: Map<string, string>;
  /** A value (a row, a section) with every id of it replaced; the value itself when no id changes. */
  remap<T>(value: T): T;
}

/** The document's ids another account already holds, each with a new id of its shape (old to new). */
async function takenIds(deps: Pick<Deps, 'db' | 'ids'>, doc: SnapshotDocument): Promise<Map<string, string>> {
  const changed = new Map<string, string>();
  for (const { table, column } of GLOBAL_IDS) await findTaken(deps, doc, table, column, changed);
  return changed;
}

/** `takenIds`, one kind of id at a time, `pause()` awaited between (each a look-up of up to 50,000 values). */
export async function takenIdsInSlices(
  deps: Pick<Deps, 'db' | 'ids'>,
  doc: SnapshotDocument,
  pause: () => Promise<void>,
): Promise<Map<string, string>> {
  const changed = new Map<string, string>();
  for (const { table, column } of GLOBAL_IDS) {
    await pause();
    await findTaken(deps, doc, table, column, changed);
  }
  return changed;
}

async function findTaken(
  deps: Pick<Deps, 'db' | 'ids'>,
  doc: SnapshotDocument,
  table: string,
  column: string,
  into: Map<string, string>,
) {
  const spec = SNAPSHOT_SECTIONS.find((s) => s.table === table)!;
  const values = (doc[spec.section] as Record<string, unknown>[]).map((r) => r[fieldOf(spec, column)] as string);
  for (const taken of await takenValues(deps.db, table, column, values)) into.set(taken, freshLike(deps.ids, taken));
}

/**
 * The ids of `doc` as it loads into `intoAccountId`: the account's id is that one, and each id another account holds
 * is a new one. Replacing them is left to `remap`, row by row as the rows are written (a copy of a whole 3.7 MB
 * document with every id replaced took some 80 ms in one go).
 */
export async function remapTakenIds(
  deps: Pick<Deps, 'db' | 'ids'>,
  doc: SnapshotDocument,
  intoAccountId: string,
  given?: Map<string, string>,
): Promise<IdRemap> {
  const changed = given ?? (await takenIds(deps, doc));
  const map = new Map(changed);
  if (doc.account.id !== intoAccountId) map.set(doc.account.id, intoAccountId);
  if (map.size === 0) return { changed, remap: (value) => value };
  const replace = (s: string) =>
    map.get(s) ??
    (s.includes(':')
      ? s
          .split(':')
          .map((part) => map.get(part) ?? part)
          .join(':')
      : s);
  // The BINs are the server's, never an account's: their ids stay (the caller does not remap them).
  return { changed, remap: <T>(value: T) => mapStrings(value, replace) as T };
}
