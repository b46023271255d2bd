import { hash } from 'node:crypto';
import {
  deleteKey,
  insertInFlightKey,
  keyRow,
  keyRowRead,
  purgeExpiredKeys,
  releaseKey,
  renewLease,
  upsertDoneKey,
  type Lease,
} from '../../store/idempotency.js';
import type { Statement } from '../../store/db.js';
import type { Deps } from '../kernel/deps.js';

const RETENTION_MS = 24 * 60 * 60 * 1000;

// Statements of the store the HTTP layer's keyed runner uses as they are: a key released when its request failed,
// and a lease renewed while its request waits.
export { releaseKey, renewLease, type Lease };

/**
 * One keyed write in PURGE_EVERY deletes a bounded batch of its account's expired keys (findKey already treats an
 * expired key as absent, so this only bounds the table): each write adds one key and a purge deletes up to 100, so
 * the purges keep up, at one statement in PURGE_EVERY writes instead of one each.
 */
const PURGE_EVERY = 16;

/** A keyed write's share of the purge of expired keys (see PURGE_EVERY). */
export async function purgeSomeExpiredKeys(
  deps: Pick<Deps, 'db' | 'keyPurges'>,
  accountId: string,
  nowMs: number,
): Promise<void> {
  if (deps.keyPurges.writes++ % PURGE_EVERY === 0) await purgeExpiredKeys(deps.db, accountId, nowMs);
}

export interface StoredResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

interface KeyFacts {
  endpoint: string;
  requestHash: string;
  /** Keyed digests of the first request's top-level fields (JSON); null on keys stored before they were kept. */
  fieldDigests: string | null;
}

export type KeyRecord =
  ({ state: 'in_flight'; heldBy: string | null } & KeyFacts) | ({ state: 'done'; response: StoredResponse } & KeyFacts);

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

// Node's one-shot hash, not createHash: no Hash object per call, a third of the cost for a body this short.
export function requestHash(body: unknown): string {
  return hash('sha256', canonicalJson(body), 'hex');
}

/** The read `findKey` starts with, for the transaction of a keyed write to open with (store/seam.ts, `opening`). */
export function keyLookup(accountId: string, key: string): Statement {
  return keyRowRead(accountId, key);
}

/**
 * The live record of a key; an expired one is deleted and reads as absent (the key counts as new). A completed key
 * expires with its retention (account time). A key in flight belongs to the request holding it, which may run for
 * as long as its fault holds it (expiring it then would let a retry execute the operation a second time); it is
 * free only once its holder's lease has run out on the wall clock (`wallMs`): an instance that died renews it no
 * more. A key in flight without a lease (left by a release before leases) is free. `wallMs` undefined: one process
 * serves the database (a SQLite file), whose keys left by a crash are released at its start, so none lapses.
 */
export async function findKey(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  key: string,
  nowMs: number,
  wallMs: number | undefined,
): Promise<KeyRecord | undefined> {
  const { db } = deps;
  const row = await keyRow(db, accountId, key);
  if (!row) return undefined;
  const lapsed =
    row.state === 'done'
      ? row.expires_at_ms <= nowMs
      : wallMs !== undefined && (row.lease_until_ms === null || row.lease_until_ms <= wallMs);
  if (lapsed) {
    await deleteKey(db, accountId, key);
    return undefined;
  }
  const facts = { endpoint: row.endpoint, requestHash: row.request_hash, fieldDigests: row.field_digests };
  if (row.state === 'in_flight') return { state: 'in_flight', heldBy: row.held_by, ...facts };
  return {
    state: 'done',
    ...facts,
    response: { status: row.status!, body: row.body!, headers: JSON.parse(row.headers!) },
  };
}

export async function reserveKey(
  deps: Pick<Deps, 'db' | 'secret'>,
  accountId: string,
  key: string,
  endpoint: string,
  body: unknown,
  hash: string,
  nowMs: number,
  lease: Lease,
): Promise<void> {
  const { db } = deps;
  await insertInFlightKey(
    db,
    accountId,
    key,
    endpoint,
    hash,
    nowMs,
    nowMs + RETENTION_MS,
    fieldDigests(deps, body),
    lease,
  );
}

/** Stores the 2xx response; call in the transaction of the operation itself. Retention counts from here. */
export async function completeKey(
  deps: Pick<Deps, 'db' | 'secret'>,
  accountId: string,
  key: string,
  endpoint: string,
  body: unknown,
  hash: string,
  response: StoredResponse,
  nowMs: number,
): Promise<void> {
  const { db } = deps;
  await upsertDoneKey(db, accountId, key, {
    endpoint,
    hash,
    fieldDigests: fieldDigests(deps, body),
    status: response.status,
    body: response.body,
    headersJson: JSON.stringify(response.headers),
    nowMs,
    expiresAtMs: nowMs + RETENTION_MS,
  });
}

/** Top-level fields compared one by one (keyed write bodies have a handful); beyond, the rest are one digest. */
const MAX_FIELDS = 32;
/**
 * A field name the hint may print: plain and short, starting with a letter, with no three digits in a row (it is the
 * client's text, and a CVV, an OTP or a card number sent as a name must not come back); other names are counted.
 */
const PRINTABLE_FIELD = /^(?!.*\d{3})[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const REST = '(other fields)';

/** The key of the field digests (hex), derived from the server secret once per secret (not once per field). */
const digestKeyCache = new WeakMap<object, string>();

/**
 * Keyed digests of a body's top-level fields, as JSON: each field's name and canonical value hashed after a key
 * derived from the server secret, so the database can tell which field a retry changed without holding any value
 * (nor letting a short one, an amount, be guessed back). One one-shot hash of the key and the field, not an HMAC or a
 * Hash object per field: this runs on every keyed write, and either costs three to four times as much.
 */
function fieldDigests(deps: Pick<Deps, 'secret'>, body: unknown): string {
  if (body === null || typeof body !== 'object') return digestsOf(deps, body);
  // A keyed write stores them twice (its key reserved, then completed) from the same parsed body: worked out once.
  let digests = bodyDigestCache.get(body);
  if (digests === undefined) bodyDigestCache.set(body, (digests = digestsOf(deps, body)));
  return digests;
}

const bodyDigestCache = new WeakMap<object, string>();

function digestsOf(deps: Pick<Deps, 'secret'>, body: unknown): string {
  let key = digestKeyCache.get(deps.secret);
  if (!key) digestKeyCache.set(deps.secret, (key = deps.secret.hmac('idempotency-field', '').toString('hex')));
  const fields: Record<string, string> = {};
  const digest = (text: string) => hash('sha256', key + text, 'hex').slice(0, 16);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    fields[REST] = digest(canonicalJson(body));
    return JSON.stringify(fields);
  }
  const names = Object.keys(body).sort();
  for (const name of names.slice(0, MAX_FIELDS)) {
    fields[name] = digest(`${name}\0${canonicalJson((body as Record<string, unknown>)[name])}`);
  }
  if (names.length > MAX_FIELDS) {
    const rest = Object.fromEntries(names.slice(MAX_FIELDS).map((n) => [n, (body as Record<string, unknown>)[n]]));
    fields[REST] = digest(canonicalJson(rest));
  }
  return JSON.stringify(fields);
}

/** Field names of a list, printable ones by name, the others counted. */
function named(names: readonly string[]): string {
  const shown = names.filter((n) => PRINTABLE_FIELD.test(n) || n === REST);
  const others = names.length - shown.length;
  return [...shown, ...(others > 0 ? [`${others} other field${others === 1 ? '' : 's'}`] : [])].join(', ');
}

/**
 * The hint of a 4211: how this request differs from the key's first one (another operation, or which top-level
 * fields changed, appeared or went missing), from the first request's digests; no value is kept or told.
 */
export function mismatchHint(deps: Pick<Deps, 'secret'>, first: KeyRecord, endpoint: string, body: unknown): string {
  if (first.endpoint !== endpoint) {
    return (
      `This Idempotency-Key was first used on ${first.endpoint}, and this request is ${endpoint}: a key stands for ` +
      'one operation; give this one a new key.'
    );
  }
  const advice =
    'A retry must repeat the first body (key order and white space do not matter); a new operation needs a new key.';
  if (first.fieldDigests === null)
    return `This request's body differs from this Idempotency-Key's first request. ${advice}`;
  const before = JSON.parse(first.fieldDigests) as Record<string, string>;
  const now = JSON.parse(fieldDigests(deps, body)) as Record<string, string>;
  const changed = Object.keys(now).filter((n) => n in before && before[n] !== now[n]);
  const added = Object.keys(now).filter((n) => !(n in before));
  const missing = Object.keys(before).filter((n) => !(n in now));
  const parts = [
    changed.length > 0 && `${named(changed)} ${changed.length === 1 ? 'differs' : 'differ'}`,
    added.length > 0 && `${named(added)} ${added.length === 1 ? 'is' : 'are'} new in this request`,
    missing.length > 0 && `${named(missing)} ${missing.length === 1 ? 'was' : 'were'} in the first request only`,
  ].filter(Boolean);
  return `This request differs from this Idempotency-Key's first request (${endpoint}): ${parts.join('; ')}. ${advice}`;
}
