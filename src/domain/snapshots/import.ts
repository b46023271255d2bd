import { accountHoldingAddress, rememberBootstrapAccount } from '../../store/accounts.js';
import { assertInTransaction } from '../../store/db.js';
import { isConstraintViolation } from '../../store/seam.js';
import {
  accountRowCount,
  insertRows,
  loadAccountRow,
  pendingDeliveries,
  putSequences,
  rememberSnapshotAccount,
  type Row,
} from '../../store/snapshot.js';
import type { Deps } from '../kernel/deps.js';
import { DomainError } from '../kernel/errors.js';
import { createAccount, findAccount } from '../accounts/accounts.js';
import { tenantOf } from '../accounts/tenants.js';
import { assertRoomForRuns, runsInSnapshot } from '../traffic/runs.js';
import { issueKey } from '../accounts/api-keys.js';
import { findBin, putBin } from '../cards/bins.js';
import { checkSnapshot } from './check.js';
import { sectionColumns, type SnapshotDocument } from './export.js';
import { ATTEMPT_JOB_KIND, fieldOf, MAX_TENANT_SNAPSHOT_ROWS, SNAPSHOT_SECTIONS, type SectionSpec } from './format.js';
import { remapTakenIds, type IdRemap } from './ids.js';
import { newSealedSecret } from '../webhooks/config.js';

export interface LoadedSnapshot {
  /** Ids the target already had, each with the new id that replaced it (old to new). */
  changedIds: Record<string, string>;
  /** The new signing secret of the snapshot's webhook endpoint, shown once; absent when it had none. */
  webhookSecret?: string;
  /** The snapshot's deposit address, when another account holds it (the account gets a new one). */
  depositAddressTaken?: string;
}

type SnapshotRun = Parameters<typeof runsInSnapshot>[0][number];
type SnapshotJob = Parameters<typeof runsInSnapshot>[1][number];

/** A document row as the table's row: its columns by name, JSON columns as text, the account's id. */
async function toTableRow(
  deps: Pick<Deps, 'db'>,
  spec: SectionSpec,
  row: Row,
  accountId: string,
  path: string,
): Promise<Row> {
  const out: Row = { account_id: accountId };
  for (const column of await sectionColumns(deps, spec)) {
    const value = row[fieldOf(spec, column)];
    if (value === undefined) throw new DomainError('SNAPSHOT_INVALID', `${path}.${fieldOf(spec, column)} is required`);
    out[column] = spec.json?.includes(column) ? JSON.stringify(value) : value;
  }
  return out;
}

/**
 * One step of writing a snapshot: a section's rows (as the document has them, made the table's rows as they are
 * written), or the counters numbering the account's things.
 */
type LoadStep = { spec: SectionSpec; rows: Row[] } | { sequences: { scope: string; value: number }[] };

/**
 * A snapshot ready to be written into an account: checked, its taken ids replaced, its rows as the tables' rows, in the
 * order they are written: every section but the timers, then the counters, then the timers, so that a timer that runs
 * as soon as it is written finds the account whole and its numbering in place.
 */
export interface SnapshotLoad {
  accountId: string;
  steps: LoadStep[];
  /** A document row with the ids it loads under. */
  remap: IdRemap['remap'];
  /** The webhook endpoint's new signing secret, sealed, when it has one. */
  webhookSecret?: ReturnType<typeof newSealedSecret>;
  loaded: LoadedSnapshot;
}

/** Where writing a load stopped: the step, and the row within it. */
export interface LoadCursor {
  step: number;
  row: number;
}

/**
 * Makes a snapshot ready to load into `intoAccountId`, an account made for it with nothing of its own yet: checks it
 * (SNAPSHOT_INVALID, or a bound of the tenant it would pass), sets the account's settings and clock (its "now" is the
 * snapshot's, frozen or running on from there), and makes its rows with taken ids replaced and its webhook endpoint
 * under a new secret. The BINs it names must exist. Runs inside the caller's transaction.
 */
export async function prepareSnapshot(
  deps: Deps,
  given: SnapshotDocument,
  intoAccountId: string,
  /** What was found of it already, in slices (a request's import): its check passed, its ids another account holds. */
  done?: { checked: true; taken: Map<string, string> },
): Promise<SnapshotLoad> {
  const { db } = deps;
  assertInTransaction(db, 'prepareSnapshot');
  if (!done) checkSnapshot(deps, given);
  // Live traffic runs count against the tenant's bounds here as at traffic/start: five imports of an export holding 3
  // live runs once gave a tenant 18 live runs and 540,000 stories.
  const into = await findAccount(deps, intoAccountId);
  if (!into) throw new DomainError('ACCOUNT_NOT_FOUND');
  const runs = runsInSnapshot(given.trafficRuns as unknown as SnapshotRun[], given.jobs as unknown as SnapshotJob[]);
  if (runs.runs > 0) await assertRoomForRuns(deps, tenantOf(into), runs, 'import a snapshot without live traffic');
  for (const bin of given.bins) {
    if (!(await findBin(deps, bin.id as string))) {
      throw new DomainError('SNAPSHOT_INVALID', `bins: ${String(bin.id)} is no BIN of this server`);
    }
  }
  const { changed, remap } = await remapTakenIds(deps, given, intoAccountId, done?.taken);
  // The account's own fields name it (a name that is its id is its new id), as every row does.
  const account = remap(given.account);
  const { clock } = given;
  const address = account.depositAddress as string | null;
  const taken = address !== null && (await accountHoldingAddress(db, address, intoAccountId)) !== undefined;
  const wallMs = deps.wallClock();
  await loadAccountRow(db, intoAccountId, {
    name: account.name,
    deposit_fee_rate_ppm: account.depositFeeRatePpm as number,
    require_idempotency_key: account.requireIdempotencyKey as number,
    // A deposit address names one account: a taken one is replaced by a new one, made on first need.
    deposit_address_mode: taken ? 'auto' : (account.depositAddressMode as string),
    deposit_address: taken ? null : address,
    default_bin_id: account.defaultBinId,
    created_at_ms: account.createdAtMs as number,
    clock_offset_ms: clock.nowMs - wallMs,
    clock_frozen_at_ms: clock.frozen ? clock.nowMs : null,
  });
  const steps: LoadStep[] = [];
  let timers: LoadStep | undefined;
  for (const spec of SNAPSHOT_SECTIONS) {
    const value = given[spec.section];
    const rows = (Array.isArray(value) ? value : value ? [value] : []) as Row[];
    if (spec.section === 'jobs') timers = { spec, rows };
    else steps.push({ spec, rows });
  }
  steps.push({ sequences: remap(given.sequences) });
  if (timers) steps.push(timers);
  const webhookSecret = given.webhook ? newSealedSecret(deps) : undefined;
  return {
    accountId: intoAccountId,
    steps,
    remap,
    ...(webhookSecret && { webhookSecret }),
    loaded: {
      changedIds: Object.fromEntries(changed),
      ...(webhookSecret !== undefined && { webhookSecret: webhookSecret.secret }),
      ...(taken && { depositAddressTaken: address }),
    },
  };
}

/** Rows written per statement batch between two looks at the time. */
const ROWS_PER_LOOK = 16;

/**
 * Writes the load's rows from `at` on, for up to `sliceMs`, inside the caller's transaction; answers where it stopped,
 * or undefined once every row is written.
 */
export async function writeSnapshotRows(
  deps: Deps,
  load: SnapshotLoad,
  at: LoadCursor,
  sliceMs: number,
): Promise<LoadCursor | undefined> {
  assertInTransaction(deps.db, 'writeSnapshotRows');
  const endMs = performance.now() + sliceMs;
  let { step, row } = at;
  while (step < load.steps.length) {
    const s = load.steps[step]!;
    if ('sequences' in s) {
      await putSequences(deps.db, s.sequences);
      [step, row] = [step + 1, 0];
      continue;
    }
    const { spec } = s;
    const upTo = Math.min(s.rows.length, row + ROWS_PER_LOOK);
    const tableRows: Row[] = [];
    for (const [i, r] of s.rows.slice(row, upTo).entries()) {
      const tableRow = await toTableRow(deps, spec, load.remap(r), load.accountId, `${spec.section}[${row + i}]`);
      // The endpoint is loaded under a new signing secret.
      if (spec.section === 'webhook' && load.webhookSecret) {
        const { sealed, prefix } = load.webhookSecret;
        Object.assign(tableRow, { secret_sealed: sealed, secret_prefix: prefix });
      }
      tableRows.push(tableRow);
    }
    await insertRows(deps.db, spec.table, tableRows);
    row = upTo;
    if (row >= s.rows.length) [step, row] = [step + 1, 0];
    if (performance.now() > endMs && step < load.steps.length) return { step, row };
  }
  return undefined;
}

/** The load's last step, once every row is written: a timer for each delivery still pending. */
export async function finishSnapshot(deps: Deps, load: SnapshotLoad): Promise<LoadedSnapshot> {
  assertInTransaction(deps.db, 'finishSnapshot');
  for (const d of await pendingDeliveries(deps.db, load.accountId)) {
    await deps.jobs.schedule(
      deps.db,
      load.accountId,
      ATTEMPT_JOB_KIND,
      String(d.id),
      d.next_attempt_at_ms ?? d.created_at_ms,
    );
  }
  return load.loaded;
}

/**
 * Loads a snapshot into `intoAccountId` at once, inside the caller's transaction (serve --snapshot, on a database of
 * its own: snapshot/import loads in slices instead); a document that does not hold together changes nothing.
 */
async function loadSnapshot(deps: Deps, given: SnapshotDocument, intoAccountId: string): Promise<LoadedSnapshot> {
  const load = await prepareSnapshot(deps, given, intoAccountId);
  await writeSnapshotRows(deps, load, { step: 0, row: 0 }, Infinity);
  return await finishSnapshot(deps, load);
}

/** The rows a document holds, section by section (the webhook endpoint is one). */
function documentRows(doc: SnapshotDocument): number {
  let n = 0;
  for (const { section } of SNAPSHOT_SECTIONS) {
    const value = doc[section];
    n += Array.isArray(value) ? value.length : value ? 1 : 0;
  }
  return n;
}

/**
 * Refuses to load `doc` into a new child of a parent whose other children (`children`) already hold, with the
 * document's rows, more than MAX_TENANT_SNAPSHOT_ROWS: checked in the loading transaction, before a row is written.
 */
export async function assertRoomForSnapshot(
  deps: Pick<Deps, 'db'>,
  children: readonly string[],
  doc: SnapshotDocument,
) {
  const incoming = documentRows(doc);
  const tables = SNAPSHOT_SECTIONS.map((s) => s.table);
  let held = 0;
  for (const id of children) held += await accountRowCount(deps.db, tables, id);
  if (held + incoming > MAX_TENANT_SNAPSHOT_ROWS) {
    throw new DomainError(
      'SNAPSHOT_TOO_LARGE',
      `this account's child sandboxes hold ${held} rows and the snapshot ${incoming}: together they may hold at most ` +
        `${MAX_TENANT_SNAPSHOT_ROWS} (delete a child with sandboxes/delete first)`,
    );
  }
}

/**
 * Runs `load` (a transaction loading a snapshot), answering a row the database refuses (a rule the checks before did
 * not cover, such as two transactions numbered alike) as the snapshot's fault: 400, nothing written.
 */
export async function asSnapshotInvalid<T>(load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (isConstraintViolation(err)) {
      throw new DomainError('SNAPSHOT_INVALID', `a row breaks a rule of the database (${(err as Error).message})`);
    }
    throw err;
  }
}

export interface BootedSnapshot extends LoadedSnapshot {
  accountId: string;
  /** The new key in clear, shown once; absent when the account took a given one. */
  apiKey?: string;
}

/**
 * serve --snapshot: on a database with no account yet, the snapshot's BINs as it had them, and an account holding
 * its state with its ids, owning `apiKey` when given, else a new key. Remembered as the database's ready account.
 */
export async function bootSnapshot(
  deps: Deps,
  doc: SnapshotDocument,
  apiKey: string | undefined,
): Promise<BootedSnapshot> {
  assertInTransaction(deps.db, 'bootSnapshot');
  for (const b of doc.bins) {
    await putBin(deps, {
      id: b.id as string,
      title: b.title as string,
      bin: b.bin as string,
      cardNetwork: b.cardNetwork as string,
      fxRatePpm: b.fxRatePpm as number,
      openFeeMicros: b.openFeeMicros as number,
      atmRatePpm: b.atmRatePpm as number,
      spendDailyMicros: b.spendDailyMicros as number,
      minimalDepositMicros: b.minimalDepositMicros as number,
      enabled: b.enabled === 1,
      inventory: b.inventory as number,
      provisioning: b.provisioning === 1,
    });
  }
  const account = await createAccount(deps, {
    id: doc.account.id,
    name: doc.account.name,
    depositFeeRatePpm: doc.account.depositFeeRatePpm as number,
    depositAddress: null,
  });
  const loaded = await loadSnapshot(deps, doc, account.id);
  const key = await issueKey(deps, account.id, apiKey);
  await rememberBootstrapAccount(deps.db, account.id);
  await rememberSnapshotAccount(deps.db, account.id);
  return { accountId: account.id, ...(apiKey === undefined && { apiKey: key.apiKey }), ...loaded };
}
