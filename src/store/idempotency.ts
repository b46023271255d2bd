import type { Db } from './seam.js';

// SQL of idempotency keys: a key is in flight while its request runs, then done with the stored response.

export interface KeyRow {
  endpoint: string;
  request_hash: string;
  state: 'in_flight' | 'done';
  status: number | null;
  body: string | null;
  /** The stored response's headers as JSON. */
  headers: string | null;
  expires_at_ms: number;
  /** Keyed digests of the first request's fields, as JSON (migration 063); null on keys stored before. */
  field_digests: string | null;
}

export async function keyRow(db: Db, accountId: string, key: string): Promise<KeyRow | undefined> {
  return (await db.get('SELECT * FROM idempotency_keys WHERE account_id = ? AND key = ?', [accountId, key])) as
    KeyRow | undefined;
}

export async function deleteKey(db: Db, accountId: string, key: string): Promise<void> {
  await db.run('DELETE FROM idempotency_keys WHERE account_id = ? AND key = ?', [accountId, key]);
}

export async function insertInFlightKey(
  db: Db,
  accountId: string,
  key: string,
  endpoint: string,
  hash: string,
  nowMs: number,
  expiresAtMs: number,
  fieldDigests: string,
): Promise<void> {
  await db.run(
    `INSERT INTO idempotency_keys (account_id, key, endpoint, request_hash, state, created_at_ms, expires_at_ms,
       field_digests) VALUES (?, ?, ?, ?, 'in_flight', ?, ?, ?)`,
    [accountId, key, endpoint, hash, nowMs, expiresAtMs, fieldDigests],
  );
}

/** Deletes the key while it is in flight (its request did not complete). */
export async function releaseKey(db: Db, accountId: string, key: string): Promise<void> {
  await db.run("DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND state = 'in_flight'", [
    accountId,
    key,
  ]);
}

export interface DoneKey {
  endpoint: string;
  hash: string;
  status: number;
  body: string;
  headersJson: string;
  nowMs: number;
  expiresAtMs: number;
  fieldDigests: string;
}

/** Writes the key as done with its response, whether it was in flight or absent. */
export async function upsertDoneKey(db: Db, accountId: string, key: string, k: DoneKey): Promise<void> {
  await db.run(
    `INSERT INTO idempotency_keys (account_id, key, endpoint, request_hash, state, status, body, headers, created_at_ms,
       expires_at_ms, field_digests) VALUES (?, ?, ?, ?, 'done', ?, ?, ?, ?, ?, ?)
     ON CONFLICT (account_id, key) DO UPDATE SET state = 'done', status = excluded.status, body = excluded.body,
       headers = excluded.headers, created_at_ms = excluded.created_at_ms, expires_at_ms = excluded.expires_at_ms,
       field_digests = excluded.field_digests`,
    [accountId, key, k.endpoint, k.hash, k.status, k.body, k.headersJson, k.nowMs, k.expiresAtMs, k.fieldDigests],
  );
}

/** Deletes a bounded batch of expired completed keys of an account (called on the keyed request path). */
export async function purgeExpiredKeys(db: Db, accountId: string, nowMs: number): Promise<void> {
  await db.run(
    `DELETE FROM idempotency_keys WHERE rowid IN
       (SELECT rowid FROM idempotency_keys WHERE account_id = ? AND expires_at_ms <= ? AND state = 'done' LIMIT 100)`,
    [accountId, nowMs],
  );
}

/** Start-up: a key left in flight by a crash never executed (execution and completion commit together). */
export async function releaseAllInFlight(db: Db): Promise<number> {
  return await db.run("DELETE FROM idempotency_keys WHERE state = 'in_flight'");
}
