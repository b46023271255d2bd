import {
  activeKeyByHash,
  activeKeyWithAccount,
  apiKeysOf,
  insertApiKey,
  keyHashExists,
  revokeApiKey,
} from '../../store/api-keys.js';
import { assertInTransaction } from '../../store/db.js';
import { toAccount } from './accounts.js';
import { tenantOf } from './account.js';
import { seenClock } from '../kernel/clock.js';
import type { Authentication } from '../kernel/instance-state.js';

export type { Authentication };
import type { Deps } from '../kernel/deps.js';
import { DomainError } from '../kernel/errors.js';

export interface KeyInfo {
  keyId: string;
  prefix: string;
  createdAtMs: number;
  revokedAtMs: number | null;
}

/** Only a keyed hash of an API key is stored: HMAC-SHA256 under the server secret. */
function hashApiKey(deps: Deps, apiKey: string): string {
  return deps.secret.hmac('api-key', apiKey).toString('hex');
}

/** Issues a key (or registers a given one, for the bootstrap account); the clear key is returned once. */
export async function issueKey(
  deps: Deps,
  accountId: string,
  given?: string,
): Promise<{ keyId: string; apiKey: string }> {
  assertInTransaction(deps.db, 'issueKey');
  const apiKey = given ?? deps.ids.apiKey();
  const keyId = deps.ids.keyId();
  await insertApiKey(
    deps.db,
    keyId,
    accountId,
    hashApiKey(deps, apiKey),
    apiKey.slice(0, Math.min(15, Math.floor(apiKey.length / 3))),
    deps.wallClock(),
  );
  return { keyId, apiKey };
}

export async function revokeKey(deps: Deps, accountId: string, keyId: string): Promise<void> {
  assertInTransaction(deps.db, 'revokeKey');
  const changes = await revokeApiKey(deps.db, accountId, keyId, deps.wallClock());
  if (changes === 0) throw new DomainError('KEY_NOT_FOUND');
}

/** The account owning an active key, or undefined for an unknown or revoked key. */
export async function accountForKey(
  deps: Deps,
  apiKey: string,
): Promise<{ accountId: string; keyId: string } | undefined> {
  const row = await activeKeyByHash(deps.db, hashApiKey(deps, apiKey));
  return row && { accountId: row.account_id, keyId: row.id };
}

/** Keys remembered; past it the cache starts again (a hosted server holds a few thousand). */
const MAX_REMEMBERED = 10_000;

/**
 * The account of an active key, read with the key in one query; undefined for an unknown or revoked key. What a
 * key found is answered again without a read (nor an HMAC) while no account or key row has changed since
 * (store/accounts.ts, `AccountRowWatch`): exactly what the read would answer. The account is frozen: requests
 * share it. A read also learns when the account's earliest foreground job is due (`nextJobDueMs`), for the
 * request's catch-up; an answer from the cache does not know it.
 */
export async function authenticate(deps: Deps, apiKey: string): Promise<Authentication | undefined> {
  const known = deps.keyCache;
  const hit = known.get(apiKey);
  if (hit && deps.accountRows.unchangedSince(hit.seen.version)) return hit;
  const row = await activeKeyWithAccount(deps.db, hashApiKey(deps, apiKey), deps.jobs.foregroundKinds());
  if (!row) {
    known.delete(apiKey);
    return undefined;
  }
  const account = Object.freeze(toAccount(row));
  const found = { account, keyId: row.key_id, tenantId: tenantOf(account), seen: seenClock(deps, row) };
  if (known.size >= MAX_REMEMBERED) known.clear();
  known.set(apiKey, found);
  return { ...found, nextJobDueMs: row.next_job_due_ms ?? Infinity };
}

export async function findKeyByValue(deps: Deps, apiKey: string): Promise<boolean> {
  return await keyHashExists(deps.db, hashApiKey(deps, apiKey));
}

export async function listKeys(deps: Deps, accountId: string): Promise<KeyInfo[]> {
  return (await apiKeysOf(deps.db, accountId)).map((r) => ({
    keyId: r.id,
    prefix: r.display_prefix,
    createdAtMs: r.created_at_ms,
    revokedAtMs: r.revoked_at_ms,
  }));
}
