import { childrenOf, expiredChildIds, insertChildLink, purgeAccount } from '../../store/account-purge.js';
import { assertInTransaction } from '../../store/db.js';
import { createAccount, ensureDepositAddress, findAccount, type Account } from './accounts.js';
import { catchUp } from '../kernel/clock.js';
import { issueKey } from './api-keys.js';
import type { Deps } from '../kernel/deps.js';
import { DomainError } from '../kernel/errors.js';
import type { SnapshotDocument } from '../snapshots/export.js';
import { asSnapshotInvalid, assertRoomForSnapshot, loadSnapshot, type LoadedSnapshot } from '../snapshots/import.js';

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
  catchUp(deps, parent.id);
  const created = deps.transactions.run(() => createSandbox(deps, parent, input));
  return { ...created, depositAddress: await ensureDepositAddress(deps, created.account.id) };
}

/**
 * sandbox/v1/snapshot/import: a child of `parent` holding a snapshot, made and loaded in one transaction (a snapshot
 * that does not hold together, or past what the parent's children may hold, leaves no child), then its deposit
 * address when the snapshot's was taken.
 */
export async function importSnapshotAsChild(
  deps: Deps,
  parent: Account,
  doc: SnapshotDocument,
): Promise<CreatedSandbox & LoadedSnapshot & { depositAddress: string | null }> {
  catchUp(deps, parent.id);
  const created = asSnapshotInvalid(() =>
    deps.transactions.run(() => {
      const child = createSandbox(deps, parent, { name: doc.account.name });
      const others = childrenOf(deps.db, parent.id).flatMap((r) => (r.id === child.account.id ? [] : [r.id]));
      assertRoomForSnapshot(deps, others, doc);
      return { ...child, ...loadSnapshot(deps, doc, child.account.id) };
    }),
  );
  return { ...created, depositAddress: await ensureDepositAddress(deps, created.account.id) };
}

function createSandbox(deps: Deps, parent: Account, input: NewSandbox): CreatedSandbox {
  assertInTransaction(deps.db, 'createSandbox');
  if (parent.parentAccountId !== null) throw new DomainError('CHILD_CANNOT_CREATE_SANDBOX');
  deleteExpiredSandboxes(deps, parent.id);
  if (childrenOf(deps.db, parent.id).length >= MAX_LIVE_CHILDREN) throw new DomainError('SANDBOX_LIMIT_REACHED');
  const expiresAtMs = deps.wallClock() + (input.ttlSeconds ?? DEFAULT_TTL_SECONDS) * 1000;
  const created = createAccount(deps, {
    name: input.name,
    depositFeeRatePpm: input.depositFeeRatePpm ?? parent.depositFeeRatePpm,
    requireIdempotencyKey: parent.requireIdempotencyKey,
    depositAddress: 'auto',
    balanceMicros: input.balanceMicros,
    delivers: input.delivers,
  });
  insertChildLink(deps.db, created.id, parent.id, expiresAtMs);
  const key = issueKey(deps, created.id);
  return { account: findAccount(deps, created.id)!, apiKey: key.apiKey, keyId: key.keyId, expiresAtMs };
}

/** The parent's live children, oldest first (expired ones are deleted on the way). */
export function listSandboxes(deps: Deps, parentId: string): SandboxSummary[] {
  assertInTransaction(deps.db, 'listSandboxes');
  deleteExpiredSandboxes(deps, parentId);
  return childrenOf(deps.db, parentId).map((r) => ({
    accountId: r.id,
    name: r.name,
    createdAtMs: r.created_at_ms,
    expiresAtMs: r.expires_at_ms,
  }));
}

/**
 * Deletes one of the parent's children. Anything else (unknown id, another account's child, the caller itself)
 * is the same 404, so the answer never tells whether some other account exists.
 */
export function deleteSandbox(deps: Deps, parentId: string, childId: string): void {
  assertInTransaction(deps.db, 'deleteSandbox');
  const child = findAccount(deps, childId);
  if (!child || child.parentAccountId !== parentId) throw new DomainError('SANDBOX_NOT_FOUND');
  deleteAccount(deps, childId);
}

/** Deletes an account and every row it owns; its keys fail from the very next request. */
function deleteAccount(deps: Deps, accountId: string): void {
  assertInTransaction(deps.db, 'deleteAccount');
  purgeAccount(deps.db, accountId);
  // A request a fault holds would wait for a release that can no longer come: it ends, and finds no account.
  deps.heldRequests.deleted(accountId);
}

/** Whether the account is a child past its expiry (wall time); such an account is deleted here and now. */
export function expireIfDue(deps: Deps, account: Account): boolean {
  assertInTransaction(deps.db, 'expireIfDue');
  if (account.expiresAtMs === null || account.expiresAtMs > deps.wallClock()) return false;
  deleteAccount(deps, account.id);
  return true;
}

/**
 * Deletes expired children (of one parent, or of every account for the timer); returns how many went.
 * @internal exported for a test that runs the timer's sweep rather than wait for the timer
 */
export function deleteExpiredSandboxes(deps: Deps, parentId?: string): number {
  assertInTransaction(deps.db, 'deleteExpiredSandboxes');
  const now = deps.wallClock();
  const ids =
    parentId === undefined
      ? expiredChildIds(deps.db, now)
      : childrenOf(deps.db, parentId)
          .filter((c) => c.expires_at_ms <= now)
          .map((c) => c.id);
  for (const id of ids) deleteAccount(deps, id);
  return ids.length;
}

/**
 * The wall-clock sweep of expired children, beside the job timer, and like it the owner of its transaction;
 * returns its stop function.
 */
export function startSandboxSweeper(deps: Deps, intervalMs = 30_000): () => void {
  const timer = setInterval(() => {
    try {
      const deleted = deps.transactions.run(() => deleteExpiredSandboxes(deps));
      if (deleted > 0) deps.logger.info({ deleted }, 'deleted expired child sandboxes');
    } catch (err) {
      deps.logger.error({ err }, 'expired sandbox sweep failed');
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
