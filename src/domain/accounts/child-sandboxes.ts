import {
  accountTablesInDeleteOrder,
  childrenOf,
  deleteAccountCounters,
  deleteAccountRowsChunk,
  endAccountRow,
  expiredChildIds,
  insertChildLink,
  purgeAccount,
} from '../../store/account-purge.js';
import { liveChildren } from './tenants.js';
import { SliceBudget } from '../kernel/fair-share.js';
import { assertInTransaction } from '../../store/db.js';
import { deleteHeldRequestsOf } from '../../store/held-requests.js';
import { createAccount, ensureDepositAddress, findAccount, type Account } from './accounts.js';
import { catchUp } from '../kernel/clock.js';
import { issueKey } from './api-keys.js';
import type { Deps } from '../kernel/deps.js';
import { DomainError } from '../kernel/errors.js';
import type { SnapshotDocument } from '../snapshots/export.js';
import { checkSnapshotInSlices } from '../snapshots/check.js';
import { takenIdsInSlices } from '../snapshots/ids.js';
import {
  asSnapshotInvalid,
  assertRoomForSnapshot,
  finishSnapshot,
  prepareSnapshot,
  writeSnapshotRows,
  type LoadCursor,
  type LoadedSnapshot,
} from '../snapshots/import.js';

// Child sandboxes (docs/design.md section 12): accounts a caller makes for itself, without the operator token, so
// a test run or a CI job works in isolation and never touches the caller's own account.

const MAX_LIVE_CHILDREN = 100;
const DEFAULT_TTL_SECONDS = 86_400;

export interface NewSandbox {
  name?: string;
  balanceMicros?: number;
  /** Defaults to the parent's rate, so a run in a child sees the fees its parent sees. */
  depositFeeRatePpm?: number;
  ttlSeconds?: number;
  /** False: the child delivers nothing, whatever its webhook configuration (a replay's child). */
  delivers?: boolean;
}

export interface CreatedSandbox {
  account: Account;
  apiKey: string;
  keyId: string;
  expiresAtMs: number;
}

export interface SandboxSummary {
  accountId: string;
  name: string;
  createdAtMs: number;
  expiresAtMs: number;
}

/** A child of `parent` with its own key (returned once); refused for a child and beyond 100 live children. */
/**
 * sandbox/v1/sandboxes/create: a child of `parent`, after the parent's due timers ran, with its deposit address made
 * (awaited after the transaction that creates it).
 */
export async function newChildSandbox(
  deps: Deps,
  parent: Account,
  input: NewSandbox,
): Promise<CreatedSandbox & { depositAddress: string | null }> {
  await catchUp(deps, parent.id);
  const created = await deps.transactions.run((deps) => createSandbox(deps, parent, input));
  return { ...created, depositAddress: await ensureDepositAddress(deps, created.account.id) };
}

/**
 * sandbox/v1/snapshot/import: a child of `parent` holding a snapshot. The child is made and the snapshot checked in
 * one transaction (a snapshot that does not hold together, or past what the parent's children may hold, leaves no
 * child); its rows are then written in slices of SLICE_MS in the parent's turns (a 2.9 MB snapshot was one
 * transaction, which every tenant waited for), the timers last; a failure on the way deletes the child. A tenant's
 * imports run one at a time, so two cannot both pass its bound on rows. Then its deposit address when the snapshot's
 * was taken.
 */
export function importSnapshotAsChild(
  deps: Deps,
  parent: Account,
  doc: SnapshotDocument,
): Promise<CreatedSandbox & LoadedSnapshot & { depositAddress: string | null }> {
  return deps.oneAtATime.run(`import:${parent.id}`, async () => {
    await catchUp(deps, parent.id);
    // What needs no transaction first, in slices: the document's check, and which of its ids are taken.
    const pause = () => deps.fairShare.turn(parent.id);
    await checkSnapshotInSlices(deps, doc, pause);
    const taken = await takenIdsInSlices(deps, doc, pause);
    const { child, load } = await asSnapshotInvalid(() =>
      deps.transactions.run(async (deps) => {
        const child = await createSandbox(deps, parent, { name: doc.account.name });
        const others = (await childrenOf(deps.db, parent.id)).flatMap((r) => (r.id === child.account.id ? [] : [r.id]));
        await assertRoomForSnapshot(deps, others, doc);
        return { child, load: await prepareSnapshot(deps, doc, child.account.id, { checked: true, taken }) };
      }),
    );
    const childId = child.account.id;
    let loaded: LoadedSnapshot;
    try {
      const budget = new SliceBudget();
      let at: LoadCursor | undefined = { step: 0, row: 0 };
      while (at) {
        await deps.fairShare.turn(parent.id);
        const from: LoadCursor = at;
        at = await budget.run((workMs) =>
          asSnapshotInvalid(() =>
            deps.transactions.run(async (deps) => {
              // Its parent may have deleted it meanwhile (sandboxes/list shows it while it loads).
              if (!(await findAccount(deps, childId))) throw new DomainError('SANDBOX_NOT_FOUND');
              return await writeSnapshotRows(deps, load, from, workMs);
            }),
          ),
        );
      }
      loaded = await asSnapshotInvalid(() => deps.transactions.run((deps) => finishSnapshot(deps, load)));
    } catch (err) {
      // Nothing of a snapshot that failed stays: the child goes, with what was written of it.
      await deps.transactions.run(async (deps) => {
        if (await findAccount(deps, childId)) await endAccount(deps, childId);
      });
      await purgeAccountInSlices(deps, childId, parent.id);
      throw err;
    }
    return { ...child, ...loaded, depositAddress: await ensureDepositAddress(deps, childId) };
  });
}

async function createSandbox(deps: Deps, parent: Account, input: NewSandbox): Promise<CreatedSandbox> {
  assertInTransaction(deps.db, 'createSandbox');
  if (parent.parentAccountId !== null) throw new DomainError('CHILD_CANNOT_CREATE_SANDBOX');
  await endExpiredSandboxes(deps, parent.id);
  if ((await liveChildren(deps, parent.id)).length >= MAX_LIVE_CHILDREN) throw new DomainError('SANDBOX_LIMIT_REACHED');
  const expiresAtMs = deps.wallClock() + (input.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000;
  const created = await createAccount(deps, {
    name: input.name,
    depositFeeRatePpm: input.depositFeeRatePpm ?? parent.depositFeeRatePpm,
    requireIdempotencyKey: parent.requireIdempotencyKey,
    depositAddress: 'auto',
    balanceMicros: input.balanceMicros,
    delivers: input.delivers,
  });
  await insertChildLink(deps.db, created.id, parent.id, expiresAtMs);
  const key = await issueKey(deps, created.id);
  return { account: (await findAccount(deps, created.id))!, apiKey: key.apiKey, keyId: key.keyId, expiresAtMs };
}

/** The parent's live children, oldest first (expired ones are ended on the way, and their rows purged after). */
export async function listSandboxes(deps: Deps, parentId: string): Promise<SandboxSummary[]> {
  assertInTransaction(deps.db, 'listSandboxes');
  await endExpiredSandboxes(deps, parentId);
  return (await liveChildren(deps, parentId)).map((r) => ({
    accountId: r.id,
    name: r.name,
    createdAtMs: r.created_at_ms,
    expiresAtMs: r.expires_at_ms,
  }));
}

/**
 * Deletes one of the parent's children: ended at once (its keys fail from the very next request), then its rows, in
 * slices in the parent's turns, before the answer. Anything else (unknown id, another account's child, the caller
 * itself) is the same 404, so the answer never tells whether some other account exists.
 */
export async function deleteSandbox(deps: Deps, parentId: string, childId: string): Promise<void> {
  await deps.transactions.run(async (deps) => {
    const child = await findAccount(deps, childId);
    if (!child || child.parentAccountId !== parentId) throw new DomainError('SANDBOX_NOT_FOUND');
    await endAccount(deps, childId);
  });
  await purgeAccountInSlices(deps, childId, parentId);
}

/** Ends an account (keys, timers, held requests) at once; its rows stay until purgeAccountInSlices. */
async function endAccount(deps: Deps, accountId: string): Promise<void> {
  assertInTransaction(deps.db, 'endAccount');
  await endAccountRow(deps.db, accountId, deps.wallClock());
  // A request a fault holds would wait for a release that can no longer come: it ends, and finds no account (on
  // another instance, its row deleted here ends its wait at the next look).
  await deleteHeldRequestsOf(deps.db, accountId);
  deps.heldRequests.deleted(accountId);
}

/** Rows deleted per statement of a purge (a slice runs as many as fit in its budget). */
const PURGE_CHUNK_ROWS = 64;

/**
 * Deletes an ended account's rows, table by table, in slices of SLICE_MS in its tenant's turns, then the account
 * itself: a child holding a 2.9 MB snapshot took one transaction, and another tenant's p99 went from 47 to 394 ms
 * through cycles of imports and deletes. One purge per account at a time. Each slice is one transaction without
 * foreign-key checks (`foreignKeys: false`, store/seam.ts), on the server's deps whatever `deps` it is given: a purge
 * outlives the transaction that ended the account.
 */
function purgeAccountInSlices(given: Deps, accountId: string, tenantId: string): Promise<void> {
  const deps = given.outside;
  return deps.oneAtATime.run(`purge:${accountId}`, async () => {
    await deps.transactions.run((deps) => deleteAccountCounters(deps.db, accountId));
    const budget = new SliceBudget();
    for (const table of await accountTablesInDeleteOrder(deps.db)) {
      for (;;) {
        const more = await budget.run((workMs) => {
          const endMs = performance.now() + workMs;
          return deps.transactions.run(
            async (deps) => {
              let full: boolean;
              do
                full = (await deleteAccountRowsChunk(deps.db, table, accountId, PURGE_CHUNK_ROWS)) === PURGE_CHUNK_ROWS;
              while (full && performance.now() < endMs);
              return full;
            },
            { foreignKeys: false },
          );
        });
        if (!more) break;
        await deps.fairShare.turn(tenantId);
      }
    }
    // What is left: rows written meanwhile (a request-log batch), a mark of the ready account, the account row.
    await deps.transactions.run((deps) => purgeAccount(deps.db, accountId), { foreignKeys: false });
  });
}

/** Purges ended accounts once the caller's transaction is over (a turn later), logging a failure. */
function purgeLater(deps: Deps, ended: readonly { id: string; tenantId: string }[]): void {
  for (const { id, tenantId } of ended) {
    if (deps.oneAtATime.has(`purge:${id}`)) continue;
    deps.store.detached(() => {
      deps.fairShare
        .turn(tenantId)
        .then(() => purgeAccountInSlices(deps, id, tenantId))
        .catch((err: unknown) => deps.logger.error({ err, accountId: id }, 'purging a child sandbox failed'));
    });
  }
}

/**
 * Whether the account is a child past its expiry (wall time); such an account is ended here and now (its key then
 * is simply unknown), and its rows purged after.
 */
export async function expireIfDue(deps: Deps, account: Account): Promise<boolean> {
  assertInTransaction(deps.db, 'expireIfDue');
  if (account.expiresAtMs === null || account.expiresAtMs > deps.wallClock()) return false;
  await endAccount(deps, account.id);
  purgeLater(deps, [{ id: account.id, tenantId: account.parentAccountId ?? account.id }]);
  return true;
}

/**
 * Ends expired children (of one parent, or of every account for the timer) and purges them after, and any ended
 * before whose purge did not finish (this process stopped); returns how many.
 * @internal exported for a test that runs the timer's sweep rather than wait for the timer
 */
export async function endExpiredSandboxes(deps: Deps, parentId?: string): Promise<number> {
  assertInTransaction(deps.db, 'endExpiredSandboxes');
  const now = deps.wallClock();
  const expired =
    parentId === undefined
      ? await expiredChildIds(deps.db, now)
      : (await childrenOf(deps.db, parentId))
          .filter((c) => c.expires_at_ms <= now)
          .map((c) => ({ id: c.id, parent_account_id: parentId }));
  const ended = expired.filter((c) => !deps.oneAtATime.has(`purge:${c.id}`));
  for (const c of ended) await endAccount(deps, c.id);
  purgeLater(
    deps,
    ended.map((c) => ({ id: c.id, tenantId: c.parent_account_id })),
  );
  return ended.length;
}

/**
 * The wall-clock sweep of expired children, beside the job timer, and like it the owner of its transaction;
 * returns its stop function.
 */
export function startSandboxSweeper(deps: Deps, intervalMs = 30_000): () => void {
  const sweep = async () => {
    try {
      const ended = await deps.transactions.run((deps) => endExpiredSandboxes(deps));
      if (ended > 0) deps.logger.info({ ended }, 'ended expired child sandboxes; their rows go in slices');
    } catch (err) {
      deps.logger.error({ err }, 'expired sandbox sweep failed');
    }
  };
  const timer = setInterval(() => void sweep(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
