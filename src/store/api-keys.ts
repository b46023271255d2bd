import type { FullAccountRow } from './accounts.js';
import type { Db } from './seam.js';

// SQL of API keys: only an HMAC of each key is stored.

export interface ApiKeyRow {
  id: string;
  display_prefix: string;
  created_at_ms: number;
  revoked_at_ms: number | null;
}

export async function insertApiKey(
  db: Db,
  keyId: string,
  accountId: string,
  keyHash: string,
  displayPrefix: string,
  createdAtMs: number,
): Promise<void> {
  await db.run(
    'INSERT INTO api_keys (id, account_id, key_hash, display_prefix, created_at_ms) VALUES (?, ?, ?, ?, ?)',
    [keyId, accountId, keyHash, displayPrefix, createdAtMs],
  );
}

/** Revokes the account's key (a revoked one keeps its first revocation time); answers how many rows matched. */
export async function revokeApiKey(db: Db, accountId: string, keyId: string, atMs: number): Promise<number> {
  return await db.run(
    'UPDATE api_keys SET revoked_at_ms = COALESCE(revoked_at_ms, ?) WHERE id = ? AND account_id = ?',
    [atMs, keyId, accountId],
  );
}

/** The active key with this hash: read on every authenticated request. */
export async function activeKeyByHash(
  db: Db,
  keyHash: string,
): Promise<{ id: string; account_id: string } | undefined> {
  return (await db.get('SELECT id, account_id FROM api_keys WHERE key_hash = ? AND revoked_at_ms IS NULL', [
    keyHash,
  ])) as { id: string; account_id: string } | undefined;
}

/**
 * The active key with this hash and its account's row, in one indexed read: what every authenticated request reads.
 * With them, the due instant of the account's earliest job of the given kinds (null: none; `kindsJson` as in jobs.ts),
 * which a request's catch-up would otherwise read next: where other instances write the database, the row is read
 * on every request, and so the job is learnt in the same round trip.
 */
export async function activeKeyWithAccount(
  db: Db,
  keyHash: string,
  kindsJson: string,
): Promise<(FullAccountRow & { key_id: string; next_job_due_ms: number | null }) | undefined> {
  return (await db.get(
    `SELECT k.id AS key_id, a.*,
       (SELECT j.due_at_ms FROM jobs j WHERE j.account_id = a.id AND j.kind IN (SELECT value FROM json_each(?))
          ORDER BY j.due_at_ms, j.id LIMIT 1) AS next_job_due_ms
       FROM api_keys k JOIN accounts a ON a.id = k.account_id
       WHERE k.key_hash = ? AND k.revoked_at_ms IS NULL`,
    [kindsJson, keyHash],
  )) as (FullAccountRow & { key_id: string; next_job_due_ms: number | null }) | undefined;
}

/** Whether any key, active or revoked, has this hash. */
export async function keyHashExists(db: Db, keyHash: string): Promise<boolean> {
  return (await db.get('SELECT 1 FROM api_keys WHERE key_hash = ?', [keyHash])) !== undefined;
}

export async function apiKeysOf(db: Db, accountId: string): Promise<ApiKeyRow[]> {
  return (await db.all(
    'SELECT id, display_prefix, created_at_ms, revoked_at_ms FROM api_keys WHERE account_id = ? ORDER BY created_at_ms, id',
    [accountId],
  )) as ApiKeyRow[];
}
