import { createHash } from 'node:crypto';
import {
  deleteKey,
  insertInFlightKey,
  keyRow,
  purgeExpiredKeys,
  releaseKey,
  upsertDoneKey,
} from '../store/idempotency.js';
import type { Deps } from './deps.js';

const RETENTION_MS = 24 * 60 * 60 * 1000;

// Statements of the store the HTTP layer's keyed runner uses as they are: a key released when its request failed,
// and a bounded batch of expired keys purged on the keyed request path.
export { purgeExpiredKeys, releaseKey };

export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

export type KeyRecord =
  | { state: 'in_flight'; endpoint: string; requestHash: string }
  | { state: 'done'; endpoint: string; requestHash: string; response: StoredResponse };

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
export function findKey(deps: Pick<Deps, 'db'>, accountId: string, key: string, nowMs: number): KeyRecord | undefined {
  const { db } = deps;
  const row = keyRow(db, accountId, key);
  if (!row) return undefined;
  if (row.state === 'done' && row.expires_at_ms <= nowMs) {
    deleteKey(db, accountId, key);
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
  deps: Pick<Deps, 'db'>,
  accountId: string,
  key: string,
  endpoint: string,
  hash: string,
  nowMs: number,
): void {
  const { db } = deps;
  insertInFlightKey(db, accountId, key, endpoint, hash, nowMs, nowMs + RETENTION_MS);
}

/** Stores the 2xx response; call in the transaction of the operation itself. Retention counts from here. */
export function completeKey(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  key: string,
  endpoint: string,
  hash: string,
  response: StoredResponse,
  nowMs: number,
): void {
  const { db } = deps;
  upsertDoneKey(db, accountId, key, {
    endpoint,
    hash,
    status: response.status,
    body: response.body,
    headersJson: JSON.stringify(response.headers),
    nowMs,
    expiresAtMs: nowMs + RETENTION_MS,
  });
}
