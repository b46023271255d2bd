import { createHash } from 'node:crypto';
import { sql, type Db } from '../store/db.js';

const RETENTION_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type KeyRecord =
  | { state: 'in_flight'; endpoint: string; requestHash: string }
  | { state: 'done'; endpoint: string; requestHash: string; response: StoredResponse };

interface KeyRow {
  endpoint: string;
  request_hash: string;
  state: 'in_flight' | 'done';
  status: number | null;
  body: string | null;
  headers: string | null;
  expires_at_ms: number;
}

type CanonicalTask = { text: string } | { value: unknown };

/**
 * Canonical JSON (object keys sorted, no white space): "the same JSON value" compares equal. Iterative, not
 * recursive: a body nested a few hundred thousand levels deep still fits the 1 MiB limit and must not
 * overflow the stack (that was a 500 caused by input).
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const tasks: CanonicalTask[] = [{ value }];
  while (tasks.length > 0) {
    const task = tasks.pop()!;
    if ('text' in task) {
      out.push(task.text);
      continue;
    }
    const v = task.value;
    if (Array.isArray(v)) {
      // Pushed in reverse, so they pop as '[', v[0], ',', v[1], ..., ']'.
      tasks.push({ text: ']' });
      for (let i = v.length - 1; i >= 0; i--) {
        tasks.push({ value: v[i] });
        if (i > 0) tasks.push({ text: ',' });
      }
      tasks.push({ text: '[' });
    } else if (v && typeof v === 'object') {
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj).sort();
      tasks.push({ text: '}' });
      for (let i = keys.length - 1; i >= 0; i--) {
        tasks.push({ value: obj[keys[i]!] });
        tasks.push({ text: (i > 0 ? ',' : '') + JSON.stringify(keys[i]) + ':' });
      }
      tasks.push({ text: '{' });
    } else {
      out.push(JSON.stringify(v));
    }
  }
  return out.join('');
}

export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

/**
 * The live record of a key; an expired one is deleted and reads as absent (the key counts as new). Only a
 * completed key expires: an in-flight one belongs to a request still running (start-up releases those left by
 * a crash), and expiring it would let a retry execute the operation a second time.
 */
export function findKey(db: Db, accountId: string, key: string, nowMs: number): KeyRecord | undefined {
  const row = sql(db, 'SELECT * FROM idempotency_keys WHERE account_id = ? AND key = ?').get(accountId, key) as
    KeyRow | undefined;
  if (!row) return undefined;
  if (row.state === 'done' && row.expires_at_ms <= nowMs) {
    sql(db, 'DELETE FROM idempotency_keys WHERE account_id = ? AND key = ?').run(accountId, key);
    return undefined;
  }
  if (row.state === 'in_flight') return { state: 'in_flight', endpoint: row.endpoint, requestHash: row.request_hash };
  return {
    state: 'done',
    endpoint: row.endpoint,
    requestHash: row.request_hash,
    response: { status: row.status!, body: row.body!, headers: JSON.parse(row.headers!) },
  };
}

export function reserveKey(
  db: Db,
  accountId: string,
  key: string,
  endpoint: string,
  hash: string,
  nowMs: number,
): void {
  sql(
    db,
    `INSERT INTO idempotency_keys (account_id, key, endpoint, request_hash, state, created_at_ms, expires_at_ms)
     VALUES (?, ?, ?, ?, 'in_flight', ?, ?)`,
  ).run(accountId, key, endpoint, hash, nowMs, nowMs + RETENTION_MS);
}

export function releaseKey(db: Db, accountId: string, key: string): void {
  sql(db, "DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND state = 'in_flight'").run(accountId, key);
}

/** Stores the 2xx response; call in the transaction of the operation itself. Retention counts from here. */
export function completeKey(
  db: Db,
  accountId: string,
  key: string,
  endpoint: string,
  hash: string,
  response: StoredResponse,
  nowMs: number,
): void {
  sql(
    db,
    `INSERT INTO idempotency_keys (account_id, key, endpoint, request_hash, state, status, body, headers, created_at_ms,
       expires_at_ms) VALUES (?, ?, ?, ?, 'done', ?, ?, ?, ?, ?)
     ON CONFLICT (account_id, key) DO UPDATE SET state = 'done', status = excluded.status, body = excluded.body,
       headers = excluded.headers, created_at_ms = excluded.created_at_ms, expires_at_ms = excluded.expires_at_ms`,
  ).run(
    accountId,
    key,
    endpoint,
    hash,
    response.status,
    response.body,
    JSON.stringify(response.headers),
    nowMs,
    nowMs + RETENTION_MS,
  );
}

/** Deletes a bounded batch of expired completed keys of an account (called on the keyed request path). */
export function purgeExpiredKeys(db: Db, accountId: string, nowMs: number): void {
  sql(
    db,
    `DELETE FROM idempotency_keys WHERE rowid IN
       (SELECT rowid FROM idempotency_keys WHERE account_id = ? AND expires_at_ms <= ? AND state = 'done' LIMIT 100)`,
  ).run(accountId, nowMs);
}

/** Start-up: a key left in flight by a crash never executed (execution and completion commit together). */
export function releaseAllInFlight(db: Db): number {
  return sql(db, "DELETE FROM idempotency_keys WHERE state = 'in_flight'").run().changes;
}
