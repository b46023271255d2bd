import { assertInTransaction, sql, type Db } from '../store/db.js';
import type { Deps } from './deps.js';
import { DomainError } from './errors.js';

export interface KeyInfo {
  keyId: string;
  prefix: string;
  createdAtMs: number;
  revokedAtMs: number | null;
}

/** Only a keyed hash of an API key is stored: HMAC-SHA256 under the server secret. */
export function hashApiKey(deps: Deps, apiKey: string): string {
  return deps.secret.hmac('api-key', apiKey).toString('hex');
}

/** Issues a key (or registers a given one, for the bootstrap account); the clear key is returned once. */
export function issueKey(deps: Deps, accountId: string, given?: string): { keyId: string; apiKey: string } {
  assertInTransaction(deps.db, 'issueKey');
  const apiKey = given ?? deps.ids.apiKey();
  const keyId = deps.ids.keyId();
  sql(
    deps.db,
    'INSERT INTO api_keys (id, account_id, key_hash, display_prefix, created_at_ms) VALUES (?, ?, ?, ?, ?)',
  ).run(
    keyId,
    accountId,
    hashApiKey(deps, apiKey),
    apiKey.slice(0, Math.min(15, Math.floor(apiKey.length / 3))),
    deps.wallClock(),
  );
  return { keyId, apiKey };
}

/**
 * Key hash -> owner of an active key, per database. The server process owns its database file and every
 * revocation goes through `revokeKey`, which empties the cache before it returns, so a revoked key fails on
 * the very next request. Only hits are cached (an unknown key is looked up each time, so a flood of random
 * keys cannot grow it), and it is bounded anyway. Saves the indexed lookup on every request.
 */
const activeKeys = new WeakMap<Db, Map<string, { accountId: string; keyId: string }>>();
const MAX_CACHED_KEYS = 10_000;

function keyCache(db: Db): Map<string, { accountId: string; keyId: string }> {
  let m = activeKeys.get(db);
  if (!m) activeKeys.set(db, (m = new Map()));
  return m;
}

/** Empties the key cache (every key of a deleted account must fail on the very next request). */
export function forgetCachedKeys(db: Db): void {
  keyCache(db).clear();
}

export function revokeKey(deps: Deps, accountId: string, keyId: string): void {
  assertInTransaction(deps.db, 'revokeKey');
  // Before the update, and whatever its outcome: a cleared cache is only ever slower, never wrong.
  keyCache(deps.db).clear();
  const res = sql(
    deps.db,
    'UPDATE api_keys SET revoked_at_ms = COALESCE(revoked_at_ms, ?) WHERE id = ? AND account_id = ?',
  ).run(deps.wallClock(), keyId, accountId);
  if (res.changes === 0) throw new DomainError('KEY_NOT_FOUND');
}

/** The account owning an active key, or undefined for an unknown or revoked key. */
export function accountForKey(deps: Deps, apiKey: string): { accountId: string; keyId: string } | undefined {
  const hash = hashApiKey(deps, apiKey);
  const cache = keyCache(deps.db);
  const hit = cache.get(hash);
  if (hit) return hit;
  const row = sql(deps.db, 'SELECT id, account_id FROM api_keys WHERE key_hash = ? AND revoked_at_ms IS NULL').get(
    hash,
  ) as { id: string; account_id: string } | undefined;
  if (!row) return undefined;
  const found = { accountId: row.account_id, keyId: row.id };
  if (cache.size >= MAX_CACHED_KEYS) cache.clear();
  cache.set(hash, found);
  return found;
}

export function findKeyByValue(deps: Deps, apiKey: string): boolean {
  return sql(deps.db, 'SELECT 1 FROM api_keys WHERE key_hash = ?').get(hashApiKey(deps, apiKey)) !== undefined;
}

export function listKeys(deps: Deps, accountId: string): KeyInfo[] {
  const rows = sql(
    deps.db,
    'SELECT id, display_prefix, created_at_ms, revoked_at_ms FROM api_keys WHERE account_id = ? ORDER BY created_at_ms, id',
  ).all(accountId) as { id: string; display_prefix: string; created_at_ms: number; revoked_at_ms: number | null }[];
  return rows.map((r) => ({
    keyId: r.id,
    prefix: r.display_prefix,
    createdAtMs: r.created_at_ms,
    revokedAtMs: r.revoked_at_ms,
  }));
}
