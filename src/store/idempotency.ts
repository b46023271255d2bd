import type { Db, Statement } from './seam.js';

// SQL of idempotency keys: a key is in flight while its request runs, then done with the stored response. A key in
// flight is held by one instance (`held_by`) under a lease on the wall clock (`lease_until_ms`, migration 067).

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
  /** In flight: the instance holding the key, and the wall-clock end of its lease; null on keys stored before 067. */
  held_by: string | null;
  lease_until_ms: number | null;
}

/** Who holds a key in flight, and until when (wall-clock Unix milliseconds) unless the holder renews it. */
export interface Lease {
  holder: string;
  untilMs: number;
}

/** The statement of `keyRow`, for a transaction to open with (store/seam.ts, `opening`). */
export function keyRowRead(accountId: string, key: string): Statement {
  return { sql: 'SELECT * FROM idempotency_keys WHERE account_id = ? AND key = ?', params: [accountId, key] };
}

export async function keyRow(db: Db, accountId: string, key: string): Promise<KeyRow | undefined> {
  const { sql, params } = keyRowRead(accountId, key);
  return (await db.get(sql, params)) as KeyRow | undefined;
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
  lease: Lease,
): Promise<void> {
  await db.run(
    `INSERT INTO idempotency_keys (account_id, key, endpoint, request_hash, state, created_at_ms, expires_at_ms,
       field_digests, held_by, lease_until_ms) VALUES (?, ?, ?, ?, 'in_flight', ?, ?, ?, ?, ?)`,
    [accountId, key, endpoint, hash, nowMs, expiresAtMs, fieldDigests, lease.holder, lease.untilMs],
  );
}

/** Deletes the key while it is in flight and held by `holder` (its request did not complete). */
export async function releaseKey(db: Db, accountId: string, key: string, holder: string): Promise<void> {
  await db.run(
    "DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND state = 'in_flight' AND held_by = ?",
    [accountId, key, holder],
  );
}

/** Extends the lease of a key `holder` still holds; answers whether it still held it. */
export async function renewLease(db: Db, accountId: string, key: string, lease: Lease): Promise<boolean> {
  const changed = await db.run(
    `UPDATE idempotency_keys SET lease_until_ms = ?
     WHERE account_id = ? AND key = ? AND state = 'in_flight' AND held_by = ?`,
    [lease.untilMs, accountId, key, lease.holder],
  );
  return changed > 0;
}

/** A stopping instance hands back every key it holds, at once rather than when their leases run out. */
export async function releaseHeldBy(db: Db, holder: string): Promise<number> {
  return await db.run("DELETE FROM idempotency_keys WHERE state = 'in_flight' AND held_by = ?", [holder]);
}

/**
 * Start-up on a database other instances may share: the keys whose holder has stopped renewing them (a lease run
 * out, or none: a key left by a release before leases), never a living instance's.
 */
export async function releaseLapsedInFlight(db: Db, wallMs: number): Promise<number> {
  return await db.run(
    "DELETE FROM idempotency_keys WHERE state = 'in_flight' AND (lease_until_ms IS NULL OR lease_until_ms <= ?)",
    [wallMs],
  );
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

/**
 * Start-up on a SQLite file, which one process serves: a key left in flight there was left by a crash, and never
 * executed (execution and completion commit together).
 */
export async function releaseAllInFlight(db: Db): Promise<number> {
  return await db.run("DELETE FROM idempotency_keys WHERE state = 'in_flight'");
}
