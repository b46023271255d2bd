import type { FullAccountRow } from './accounts.js';
import { sql, type Db } from './db.js';

// SQL of API keys: only an HMAC of each key is stored.

export interface ApiKeyRow {
  id: string;
  display_prefix: string;
  created_at_ms: number;
  revoked_at_ms: number | null;
}

export function insertApiKey(
  db: Db,
  keyId: string,
  accountId: string,
  keyHash: string,
  displayPrefix: string,
  createdAtMs: number,
): void {
  sql(db, 'INSERT INTO api_keys (id, account_id, key_hash, display_prefix, created_at_ms) VALUES (?, ?, ?, ?, ?)').run(
    keyId,
    accountId,
    keyHash,
    displayPrefix,
    createdAtMs,
  );
}

/** Revokes the account's key (a revoked one keeps its first revocation time); answers how many rows matched. */
export function revokeApiKey(db: Db, accountId: string, keyId: string, atMs: number): number {
  return sql(db, 'UPDATE api_keys SET revoked_at_ms = COALESCE(revoked_at_ms, ?) WHERE id = ? AND account_id = ?').run(
    atMs,
    keyId,
    accountId,
  ).changes;
}

/** The active key with this hash: read on every authenticated request. */
export function activeKeyByHash(db: Db, keyHash: string): { id: string; account_id: string } | undefined {
  return sql(db, 'SELECT id, account_id FROM api_keys WHERE key_hash = ? AND revoked_at_ms IS NULL').get(keyHash) as
    { id: string; account_id: string } | undefined;
}

/** The active key with this hash and its account's row, in one indexed read: what every authenticated request reads. */
export function activeKeyWithAccount(db: Db, keyHash: string): (FullAccountRow & { key_id: string }) | undefined {
  return sql(
    db,
    `SELECT k.id AS key_id, a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.key_hash = ? AND k.revoked_at_ms IS NULL`,
  ).get(keyHash) as (FullAccountRow & { key_id: string }) | undefined;
}

/** Whether any key, active or revoked, has this hash. */
export function keyHashExists(db: Db, keyHash: string): boolean {
  return sql(db, 'SELECT 1 FROM api_keys WHERE key_hash = ?').get(keyHash) !== undefined;
}

export function apiKeysOf(db: Db, accountId: string): ApiKeyRow[] {
  return sql(
    db,
    'SELECT id, display_prefix, created_at_ms, revoked_at_ms FROM api_keys WHERE account_id = ? ORDER BY created_at_ms, id',
  ).all(accountId) as ApiKeyRow[];
}
