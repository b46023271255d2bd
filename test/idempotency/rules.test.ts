import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { requestHash, reserveKey } from '../../src/domain/idempotency/keys.js';
import {
  cardAvailable,
  expectRefusedUnchanged,
  failInserts,
  holdNext,
  newCard,
  walletAvailable,
  worldSnapshot,
} from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { START_MS, createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

let sb: TestSandbox;
let acct: AccountHandle;

it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const CREATE = { amount: 10, currency: 'USDT' };
const keyed = (key: string, path: string, body: unknown, apiKey = acct.apiKey) =>
  sb.post(apiKey, path, body, { 'Idempotency-Key': key });
const keyRows = async () => (await sb.deps.store.value<number>('SELECT COUNT(*) FROM idempotency_keys'))!;

describe('Idempotency rule 2-3: the first request executes, a retry replays', () => {
  it('replays status, body and headers with Idempotent-Replayed: true, without executing again', async () => {
    const first = await keyed('k1', '/v1/card/create', CREATE);
    expect(first.status).toBe(200);
    expect(first.headers['idempotency-key']).toBe('k1');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await keyed('k1', '/v1/card/create', CREATE);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.text).toBe(first.text);
    expect(retry.headers['content-type']).toBe(first.headers['content-type']);
    expect(retry.headers['idempotency-key']).toBe('k1');
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect((await sb.post(acct.apiKey, '/v1/card/list', {})).body.cardList).toHaveLength(1);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('90');
  });

  it.each(['deposit', 'freeze', 'unfreeze', 'cancel'])('card/%s executes once under one key', async (path) => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    if (path === 'unfreeze') await sb.post(acct.apiKey, '/v1/card/freeze', { cardId });
    const body = path === 'deposit' ? { cardId, amount: 20 } : { cardId };
    const first = await keyed('k-' + path, `/v1/card/${path}`, body);
    expect(first.body).toEqual({ code: 0, message: 'ok' });
    const before = await worldSnapshot(sb);
    // Without the key these retries would fail (4007 settling, 4008 cancelling) or be no-ops; keyed, they replay.
    const retry = await keyed('k-' + path, `/v1/card/${path}`, body);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ code: 0, message: 'ok' });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await worldSnapshot(sb)).toEqual(before);
  });

  it('treats the same JSON value as identical whatever the key order and white space', async () => {
    await keyed('k2', '/v1/card/create', '{"amount":10,"currency":"USDT"}');
    const retry = await keyed('k2', '/v1/card/create', '{ "currency" : "USDT",\n  "amount" : 10 }');
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await walletAvailable(sb, acct.apiKey)).toBe('90');
  });

  it('the replay is of the stored response, not of the current state', async () => {
    const first = await keyed('k3', '/v1/card/create', CREATE);
    await sb.post(acct.apiKey, '/v1/card/freeze', { cardId: first.body.cardId });
    const retry = await keyed('k3', '/v1/card/create', CREATE);
    expect(retry.body.cardStatus).toBe('ACTIVE');
  });
});

describe('Idempotency rule 2: failed results are not stored', () => {
  it('a 3001 under a key leaves the key free, so the retry after funding executes', async () => {
    const fail = await keyed('k-fail', '/v1/card/create', { amount: 500, currency: 'USDT' });
    expect(fail.status).toBe(400);
    expect(fail.body.code).toBe(3001);
    expect(fail.headers['idempotency-key']).toBe('k-fail');
    expect(await keyRows()).toBe(0);
    await sb.post(acct.apiKey, '/sandbox/v1/wallet/seed', { amount: 400 });
    const ok = await keyed('k-fail', '/v1/card/create', { amount: 500, currency: 'USDT' });
    expect(ok.status).toBe(200);
    expect(ok.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a failure then a success under the same key with a different body is not a mismatch', async () => {
    await keyed('k-fail2', '/v1/card/create', { amount: 500, currency: 'USDT' });
    expect((await keyed('k-fail2', '/v1/card/create', CREATE)).status).toBe(200);
  });
});

describe('Idempotency rule 4: 4211 on a different request', () => {
  it('same key with a different body is HTTP 409 code 4211 and executes nothing', async () => {
    await keyed('k4', '/v1/card/create', CREATE);
    const before = await worldSnapshot(sb);
    const res = await keyed('k4', '/v1/card/create', { amount: 11, currency: 'USDT' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ code: 4211, message: 'Idempotency-Key was already used with a different request' });
    expect(res.headers['idempotency-key']).toBe('k4');
    expect(await worldSnapshot(sb)).toEqual(before);
  });

  it('same key and body on another endpoint is 4211', async () => {
    const cardId = await newCard(sb, acct.apiKey);
    await keyed('k5', '/v1/card/freeze', { cardId });
    const res = await keyed('k5', '/v1/card/unfreeze', { cardId });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe(4211);
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('FROZEN');
  });

  it('an added optional field (currency) is a different body', async () => {
    const cardId = await newCard(sb, acct.apiKey);
    await keyed('k6', '/v1/card/deposit', { cardId, amount: 5 });
    const res = await keyed('k6', '/v1/card/deposit', { cardId, amount: 5, currency: 'USDT' });
    expect(res.body.code).toBe(4211);
  });
});

describe('Idempotency rule 1: keys are scoped to the account', () => {
  it('the same key and body on another account executes there', async () => {
    const other = await sb.account({ balance: 100 });
    const a = await keyed('shared', '/v1/card/create', CREATE);
    const b = await keyed('shared', '/v1/card/create', CREATE, other.apiKey);
    expect(b.status).toBe(200);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(b.body.cardId).not.toBe(a.body.cardId);
    expect(await walletAvailable(sb, other.apiKey)).toBe('90');
  });

  it('two keys of one account share the idempotency scope', async () => {
    const second = (await sb.admin('post', `/admin/v1/accounts/${acct.accountId}/keys`)).body.apiKey as string;
    const a = await keyed('k7', '/v1/card/create', CREATE);
    const b = await keyed('k7', '/v1/card/create', CREATE, second);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body).toEqual(a.body);
  });
});

describe('Idempotency-Key validation: malformed keys are 400 and nothing executes', () => {
  it.each([
    ['256 characters', 'k'.repeat(256), /at most 255 characters/],
    ['empty', '', /must not be empty/],
    ['a tab inside', 'a\tb', /printable ASCII/],
    ['a non-ASCII character', 'caf\u00e9', /printable ASCII/],
  ])('a key of %s', async (_name, key, message) => {
    const before = await worldSnapshot(sb);
    const res = await keyed(key, '/v1/card/create', CREATE);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(await worldSnapshot(sb)).toEqual(before);
  });

  it('accepts a key of exactly 255 printable characters, and a UUID', async () => {
    expect((await keyed('~'.repeat(255), '/v1/card/create', CREATE)).status).toBe(200);
    expect((await keyed('6f1c2a5e-2b1d-4e8f-9a51-3c7d2f0b9e11', '/v1/card/create', CREATE)).status).toBe(200);
  });
});

describe('Idempotency rule 6: read endpoints ignore the key', () => {
  it.each(['card/list', 'card/binList', 'wallet/assetList', 'bill/list'])(
    '%s neither stores nor echoes it',
    async (path) => {
      const res = await keyed('k'.repeat(300), `/v1/${path}`, {});
      expect(res.status).toBe(200);
      expect(res.headers['idempotency-key']).toBeUndefined();
      expect(await keyRows()).toBe(0);
    },
  );

  it('card/detail with a key used by a mutation is not a mismatch', async () => {
    const created = await keyed('k8', '/v1/card/create', CREATE);
    const res = await keyed('k8', '/v1/card/detail', { cardId: created.body.cardId });
    expect(res.status).toBe(200);
  });
});

describe('Idempotency rule 5: requireIdempotencyKey', () => {
  it.each(['create', 'deposit', 'freeze', 'unfreeze', 'cancel'])(
    'card/%s without a key is HTTP 400 code 4210',
    async (path) => {
      const strict = await sb.account({ balance: 100, requireIdempotencyKey: true });
      const cardId = (await keyed('setup', '/v1/card/create', CREATE, strict.apiKey)).body.cardId;
      const res = await expectRefusedUnchanged(sb, 400, () =>
        sb.post(strict.apiKey, `/v1/card/${path}`, { ...CREATE, cardId }),
      );
      expect(res.body).toEqual({ code: 4210, message: 'Idempotency-Key header is required' });
    },
  );

  it('reads need no key, and body validation (400) comes before 4210', async () => {
    const strict = await sb.account({ requireIdempotencyKey: true });
    expect((await sb.post(strict.apiKey, '/v1/card/list', {})).status).toBe(200);
    const invalid = await sb.post(strict.apiKey, '/v1/card/create', { currency: 'USDT' });
    expect(invalid.body.code).toBe(400);
  });

  it('the key stays optional by default', async () => {
    expect((await sb.post(acct.apiKey, '/v1/card/create', CREATE)).status).toBe(200);
  });
});

describe('Limits: idempotency key retention is 24 hours of account time', () => {
  it('replays until 24 h after the first execution, then treats the key as new', async () => {
    const first = await keyed('k9', '/v1/card/create', CREATE);
    await sb.advance(acct.apiKey, 24 * 3600 - 1);
    const within = await keyed('k9', '/v1/card/create', CREATE);
    expect(within.headers['idempotent-replayed']).toBe('true');
    expect(within.body.cardId).toBe(first.body.cardId);
    await sb.advance(acct.apiKey, 1);
    const after = await keyed('k9', '/v1/card/create', CREATE);
    expect(after.status).toBe(200);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(after.body.cardId).not.toBe(first.body.cardId);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('80');
  });

  it('counts on the account clock, not the wall clock of another account', async () => {
    await keyed('k10', '/v1/card/create', CREATE);
    const other = await sb.account();
    await sb.advance(other.apiKey, 48 * 3600);
    expect((await keyed('k10', '/v1/card/create', CREATE)).headers['idempotent-replayed']).toBe('true');
  });

  it('after 24 h a different body under the old key executes instead of 4211', async () => {
    await keyed('k11', '/v1/card/create', CREATE);
    await sb.advance(acct.apiKey, 24 * 3600);
    expect((await keyed('k11', '/v1/card/create', { amount: 20, currency: 'USDT' })).status).toBe(200);
  });

  it('purges expired keys of the account as it writes (one keyed write in 16 deletes a batch of them)', async () => {
    for (let i = 0; i < 5; i++) await keyed(`old-${i}`, '/v1/card/create', { amount: 1, currency: 'USDT' });
    expect(await keyRows()).toBe(5);
    await sb.advance(acct.apiKey, 24 * 3600);
    const fresh = Array.from({ length: 16 }, (_, i) => `fresh-${String(i).padStart(2, '0')}`);
    for (const key of fresh) await keyed(key, '/v1/card/create', { amount: 1, currency: 'USDT' });
    expect(await sb.deps.store.column('SELECT key FROM idempotency_keys ORDER BY key')).toEqual(fresh);
  });
});

async function untilInFlight(s: TestSandbox, key: string): Promise<void> {
  await waitFor(`key ${key} in flight`, () =>
    s.deps.store.value("SELECT 1 FROM idempotency_keys WHERE key = ? AND state = 'in_flight'", [key]),
  );
}

// Real concurrency, decided by the test: the first request is held by a `hold` fault, its key in flight, until the
// test releases it with faults/release (holdNext in test/helpers/core.ts).
describe('Idempotency rule 4: 4212 while the first request is in flight', () => {
  it('a concurrent retry gets HTTP 409 code 4212; after the first completes the retry replays', async () => {
    const hold = await holdNext(sb, acct, '/v1/card/create');
    const first = keyed('c1', '/v1/card/create', CREATE).then((r) => r);
    await untilInFlight(sb, 'c1');
    const concurrent = await keyed('c1', '/v1/card/create', CREATE);
    expect(concurrent.status).toBe(409);
    expect(concurrent.body).toEqual({
      code: 4212,
      message: 'A request with this Idempotency-Key is already in progress',
    });
    expect(concurrent.headers['idempotency-key']).toBe('c1');
    await hold.release();
    const done = await first;
    expect(done.status).toBe(200);
    const retry = await keyed('c1', '/v1/card/create', CREATE);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(done.body);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('90');
  });

  it('many concurrent retries: exactly one executes, the rest are 4212', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    const hold = await holdNext(sb, acct, '/v1/card/deposit');
    const first = keyed('c2', '/v1/card/deposit', { cardId, amount: 20 }).then((r) => r);
    await untilInFlight(sb, 'c2');
    const others = await Promise.all(
      Array.from({ length: 8 }, () => keyed('c2', '/v1/card/deposit', { cardId, amount: 20 })),
    );
    expect(others.map((r) => r.body.code)).toEqual(Array(8).fill(4212));
    await hold.release();
    expect((await first).status).toBe(200);
    await sb.advance(acct.apiKey, 3);
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('29.4');
    expect(await walletAvailable(sb, acct.apiKey)).toBe('70');
  });

  it('a concurrent request with a different body is 4211, not 4212', async () => {
    const hold = await holdNext(sb, acct, '/v1/card/create');
    const first = keyed('c3', '/v1/card/create', CREATE).then((r) => r);
    await untilInFlight(sb, 'c3');
    const res = await keyed('c3', '/v1/card/create', { amount: 12, currency: 'USDT' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe(4211);
    await hold.release();
    expect((await first).status).toBe(200);
  });

  it('a first request that fails after waiting releases its key', async () => {
    const hold = await holdNext(sb, acct, '/v1/card/create');
    const first = keyed('c4', '/v1/card/create', { amount: 500, currency: 'USDT' }).then((r) => r);
    await untilInFlight(sb, 'c4');
    await hold.release();
    expect((await first).body.code).toBe(3001);
    expect(await keyRows()).toBe(0);
    await sb.post(acct.apiKey, '/sandbox/v1/wallet/seed', { amount: 400 });
    expect((await keyed('c4', '/v1/card/create', { amount: 500, currency: 'USDT' })).status).toBe(200);
  });
});

describe('Idempotency: crash safety', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'idem-crash-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a key left in flight by a crash is released (on SQLite when the server starts, on PostgreSQL once its lease has run out), and the retry executes once', async () => {
    const dbPath = join(dir, 'sandbox.db');
    const before = createTestSandbox({ config: { dbPath } });
    const a = await before.account({ balance: 100 });
    const accountId = a.accountId;
    // The process died while waiting between reserving the key and executing: the row says in flight, held by it.
    const lease = { holder: before.deps.instance, untilMs: START_MS + before.config.idempotencyLeaseMs };
    await reserveKey(before.deps, accountId, 'crash-key', 'card/create', CREATE, requestHash(CREATE), START_MS, lease);
    expect((await before.post(a.apiKey, '/v1/card/create', CREATE, { 'Idempotency-Key': 'crash-key' })).body.code).toBe(
      4212,
    );
    await before.close();

    const after = createTestSandbox({ config: { dbPath } });
    try {
      await after.deps.ready;
      if (after.deps.store.dialect === 'sqlite') {
        // One process serves a SQLite file: keys in flight are released as the store is prepared (deps.ready).
        expect(await after.deps.store.value('SELECT COUNT(*) FROM idempotency_keys')).toBe(0);
      } else {
        // Other instances may share a PostgreSQL database: the key stays held until its lease has run out.
        const held = await after.post(a.apiKey, '/v1/card/create', CREATE, { 'Idempotency-Key': 'crash-key' });
        expect(held.body.code).toBe(4212);
        after.wall.ms = lease.untilMs;
      }
      const retry = await after.post(a.apiKey, '/v1/card/create', CREATE, { 'Idempotency-Key': 'crash-key' });
      expect(retry.status).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      expect(await walletAvailable(after, a.apiKey)).toBe('90');
    } finally {
      await after.close();
    }
  });

  it('a completed key survives a restart: the retry of a lost response replays', async () => {
    const dbPath = join(dir, 'sandbox.db');
    const before = createTestSandbox({ config: { dbPath } });
    const a = await before.account({ balance: 100 });
    const first = await before.post(a.apiKey, '/v1/card/create', CREATE, { 'Idempotency-Key': 'durable' });
    await before.close();
    const after = createTestSandbox({ config: { dbPath } });
    try {
      const retry = await after.post(a.apiKey, '/v1/card/create', CREATE, { 'Idempotency-Key': 'durable' });
      expect(retry.headers['idempotent-replayed']).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(await walletAvailable(after, a.apiKey)).toBe('90');
    } finally {
      await after.close();
    }
  });

  it('the stored response and the operation commit in one transaction: a failing store rolls the operation back', async () => {
    // Make the completion insert fail (a CHECK violation) after the operation ran inside the transaction.
    await failInserts(sb.deps.store, 'idempotency_keys', 'simulated failure', "NEW.key = 'atomic'");
    const before = await worldSnapshot(sb);
    const res = await keyed('atomic', '/v1/card/create', CREATE);
    expect(res.status).toBe(500);
    expect(res.body.code).toBe(9999);
    expect(await worldSnapshot(sb)).toEqual(before);
  });
});

describe('Idempotency: the request hash', () => {
  it('a keyed body nested 200,000 levels deep (under 1 MiB) is a 400 naming the depth bound, never a 500', async () => {
    const depth = 200_000;
    const body = '{"amount":10,"currency":"USDT","x":' + '['.repeat(depth) + ']'.repeat(depth) + '}';
    const first = await keyed('deep', '/v1/card/create', body);
    expect(first.status).toBe(400);
    expect(first.body).toEqual({ code: 400, message: 'request body nests deeper than 64 levels' });
    const retry = await keyed('deep', '/v1/card/create', body);
    expect(retry.status).toBe(400);
  });
});

describe('Idempotency rule 3: every response to a keyed request echoes the key', () => {
  it.each([
    ['a validation error', '/v1/card/create', { currency: 'USDT' }, 400],
    ['an unknown card', '/v1/card/freeze', { cardId: 'nope' }, 400],
    ['a short balance', '/v1/card/create', { amount: 1000, currency: 'USDT' }, 400],
    ['a success', '/v1/card/create', { amount: 1, currency: 'USDT' }, 200],
  ])('on %s', async (_name, path, body, status) => {
    const res = await keyed('echo-me', path, body);
    expect(res.status).toBe(status);
    expect(res.headers['idempotency-key']).toBe('echo-me');
  });

  it('on a malformed JSON body', async () => {
    const res = await keyed('echo-json', '/v1/card/create', '{');
    expect(res.status).toBe(400);
    expect(res.headers['idempotency-key']).toBe('echo-json');
  });
});

describe('Idempotency: an in-flight key never expires under the request that holds it', () => {
  it('25 h of account time after a key was reserved, a retry still gets 4212 and executes nothing', async () => {
    // A holder that never finishes (a held request is released by the advance that would expire its key).
    await reserveKey(sb.deps, acct.accountId, 'slow', 'card/create', CREATE, requestHash(CREATE), START_MS, {
      holder: sb.deps.instance,
      untilMs: START_MS + sb.config.idempotencyLeaseMs,
    });
    await sb.advance(acct.apiKey, 25 * 3600);
    const retry = await keyed('slow', '/v1/card/create', CREATE);
    expect(retry.status).toBe(409);
    expect(retry.body.code).toBe(4212);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('100');
  });

  it('a request held across a 25 h advance executes once when released; its retry replays', async () => {
    const hold = await holdNext(sb, acct, '/v1/card/create');
    const first = keyed('slow', '/v1/card/create', CREATE).then((r) => r);
    await untilInFlight(sb, 'slow');
    await sb.advance(acct.apiKey, 25 * 3600);
    expect(await hold.release()).toBe(1);
    expect((await first).status).toBe(200);
    const retry = await keyed('slow', '/v1/card/create', CREATE);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await walletAvailable(sb, acct.apiKey)).toBe('90');
  });
});
