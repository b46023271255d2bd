import { assertInTransaction, sql } from '../store/db.js';
import type { Deps } from './deps.js';
import { DomainError } from './errors.js';

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

export function revokeKey(deps: Deps, accountId: string, keyId: string): void {
  assertInTransaction(deps.db, 'revokeKey');
  const res = sql(
    deps.db,
    'UPDATE api_keys SET revoked_at_ms = COALESCE(revoked_at_ms, ?) WHERE id = ? AND account_id = ?',
  ).run(deps.wallClock(), keyId, accountId);
  if (res.changes === 0) throw new DomainError('KEY_NOT_FOUND');
}

/** The account owning an active key, or undefined for an unknown or revoked key. */
export function accountForKey(deps: Deps, apiKey: string): { accountId: string; keyId: string } | undefined {
  const row = sql(deps.db, 'SELECT id, account_id FROM api_keys WHERE key_hash = ? AND revoked_at_ms IS NULL').get(
    hashApiKey(deps, apiKey),
  ) as { id: string; account_id: string } | undefined;
  return row && { accountId: row.account_id, keyId: row.id };
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
