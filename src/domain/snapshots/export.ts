import { accountRow } from '../../store/accounts.js';
import {
  accountRowCount,
  accountRows,
  accountSequences,
  binRowsById,
  tableColumns,
  type Row,
} from '../../store/snapshot.js';
import type { Deps } from '../kernel/deps.js';
import { SLICE_MS } from '../kernel/fair-share.js';
import { DomainError } from '../kernel/errors.js';
import { canonicalJson } from '../idempotency/keys.js';
import {
  camel,
  fieldOf,
  MAX_SNAPSHOT_BYTES,
  MAX_SNAPSHOT_ROWS,
  SNAPSHOT_FORMAT,
  SNAPSHOT_SECTIONS,
  SNAPSHOT_VERSION,
  type SectionSpec,
} from './format.js';

/** The columns of an account row a snapshot's `account` holds (the clock is its own section). */
const ACCOUNT_COLUMNS = [
  'id',
  'name',
  'deposit_fee_rate_ppm',
  'require_idempotency_key',
  'deposit_address_mode',
  'deposit_address',
  'default_bin_id',
  'created_at_ms',
] as const;

export type SnapshotDocument = Record<string, unknown> & {
  format: string;
  version: number;
  account: Record<string, unknown> & { id: string; name: string; defaultBinId: string };
  clock: { nowMs: number; frozen: boolean };
  bins: Record<string, unknown>[];
  sequences: { scope: string; value: number }[];
  signature?: string;
};

/** A row of the table as the document holds it: camelCased, JSON columns as values, the spec's columns left out. */
function toDocumentRow(spec: SectionSpec, row: Row): Row {
  const out: Row = {};
  for (const [column, value] of Object.entries(row)) {
    if (column === 'account_id' || column === spec.serial || spec.omit?.includes(column)) continue;
    out[fieldOf(spec, column)] = spec.json?.includes(column) && typeof value === 'string' ? JSON.parse(value) : value;
  }
  return out;
}

/**
 * This server's signature of a snapshot: an HMAC of its canonical JSON (all but `signature`), fed a row at a time,
 * `pause()` awaited after every SLICE_MS: the canonical form of a 3.7 MB snapshot took 240 ms in one go, every tenant
 * waiting.
 */
export async function signatureInSlices(
  deps: Pick<Deps, 'secret'>,
  doc: Record<string, unknown>,
  pause: () => Promise<void>,
): Promise<string> {
  const { signature: _s, code: _c, message: _m, ...signed } = doc;
  const hmac = deps.secret.hmacOf('account-snapshot');
  let endMs = performance.now() + SLICE_MS;
  hmac.update('{');
  const keys = Object.keys(signed).sort();
  for (let i = 0; i < keys.length; i++) {
    hmac.update((i > 0 ? ',' : '') + JSON.stringify(keys[i]) + ':');
    const value = signed[keys[i]!];
    if (!Array.isArray(value)) {
      hmac.update(canonicalJson(value));
      continue;
    }
    hmac.update('[');
    for (let j = 0; j < value.length; j++) {
      hmac.update((j > 0 ? ',' : '') + canonicalJson(value[j]));
      if (performance.now() > endMs) {
        await pause();
        endMs = performance.now() + SLICE_MS;
      }
    }
    hmac.update(']');
  }
  hmac.update('}');
  return hmac.digest('hex');
}

/** The rows of the account's state a snapshot of it would hold (counted on indexes, before anything is built). */
export async function snapshotRows(deps: Pick<Deps, 'db'>, accountId: string): Promise<number> {
  return await accountRowCount(
    deps.db,
    SNAPSHOT_SECTIONS.map((s) => s.table),
    accountId,
  );
}

/**
 * snapshot/export: the account's whole state at `nowMs` (its caught-up "now"), read in one transaction (every table
 * as of the same instant), then signed by this server in slices (`pause`, between them: signing 3.7 MB took 240 ms in
 * one go). Refused (before it is built) past MAX_SNAPSHOT_ROWS rows, and past MAX_SNAPSHOT_BYTES once written.
 */
export async function exportSnapshot(
  deps: Deps,
  accountId: string,
  nowMs: number,
  pause: () => Promise<void>,
): Promise<{ text: string; doc: SnapshotDocument }> {
  const doc = await deps.transactions.run((deps) => readAccountState(deps, accountId, nowMs));
  doc.signature = await signatureInSlices(deps, doc, pause);
  const text = JSON.stringify(doc);
  if (Buffer.byteLength(text) > MAX_SNAPSHOT_BYTES) {
    throw new DomainError(
      'SNAPSHOT_TOO_LARGE',
      `the account's snapshot would take ${Buffer.byteLength(text)} bytes: a snapshot takes at most ${MAX_SNAPSHOT_BYTES}`,
    );
  }
  return { text, doc };
}

/** The account's whole state, unsigned, as a snapshot holds it; inside the caller's transaction. */
async function readAccountState(deps: Deps, accountId: string, nowMs: number): Promise<SnapshotDocument> {
  const { db } = deps;
  const rows = await snapshotRows(deps, accountId);
  if (rows > MAX_SNAPSHOT_ROWS) {
    throw new DomainError(
      'SNAPSHOT_TOO_LARGE',
      `the account holds ${rows} rows: a snapshot holds at most ${MAX_SNAPSHOT_ROWS}`,
    );
  }
  const account = await accountRow(db, accountId);
  if (!account) throw new DomainError('ACCOUNT_DELETED');
  const sections: Record<string, unknown> = {};
  for (const spec of SNAPSHOT_SECTIONS) {
    const found = (await accountRows(db, spec.table, accountId, spec.order, spec.where)).map((r) =>
      toDocumentRow(spec, r),
    );
    sections[spec.section] = spec.section === 'webhook' ? (found[0] ?? null) : found;
  }
  const binIds = new Set<string>([account.default_bin_id]);
  for (const section of ['cards', 'transactions', 'binInventory'] as const) {
    for (const r of sections[section] as Row[]) binIds.add(r.binId as string);
  }
  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    exportedAt: new Date(deps.wallClock()).toISOString(),
    account: Object.fromEntries(ACCOUNT_COLUMNS.map((c) => [camel(c), account[c]])) as SnapshotDocument['account'],
    clock: { nowMs, frozen: account.clock_frozen_at_ms !== null },
    bins: (await binRowsById(db, [...binIds])).map((r) =>
      toDocumentRow({ table: 'bins', section: 'bins', order: '' }, r),
    ),
    sequences: await accountSequences(db, accountId),
    ...sections,
  };
}

/** The columns a section's rows hold in the document (the import writes back each of them). */
export async function sectionColumns(deps: Pick<Deps, 'db'>, spec: SectionSpec): Promise<string[]> {
  return (await tableColumns(deps.db, spec.table)).filter(
    (c) => c !== 'account_id' && c !== spec.serial && !spec.omit?.includes(c),
  );
}
