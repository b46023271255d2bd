import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newCard } from '../helpers/core.js';
import { onPostgres } from '../helpers/postgres.js';
import { createTestSandbox, START_MS, type AccountHandle, type TestSandbox, sqliteOf } from '../helpers/sandbox.js';

let sb: TestSandbox;
let dir: string | undefined;
afterEach(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const requests = (key: string, body: Record<string, unknown> = {}) => sb.post(key, '/sandbox/v1/requests', body);
const getRecord = (key: string, requestId: string) => sb.post(key, '/sandbox/v1/requests/get', { requestId });

async function setUp(config = {}): Promise<AccountHandle> {
  sb = createTestSandbox({ config });
  return sb.account({ balance: 100 });
}

describe('request log: what is recorded', () => {
  it('records each authenticated request, newest first, with its summary fields', async () => {
    const acct = await setUp();
    const first = await sb.post(acct.apiKey, '/v1/wallet/assetList', {});
    sb.wall.ms += 1000;
    const second = await sb.post(acct.apiKey, '/v1/card/detail', { cardId: '1' });
    const res = await requests(acct.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.requests).toEqual([
      {
        requestId: second.headers['x-request-id'],
        time: new Date(START_MS + 1000).toISOString(),
        method: 'POST',
        path: '/v1/card/detail',
        status: 400,
        code: 4001,
        latencyMs: expect.any(Number),
        keyId: acct.keyId,
        idempotencyKey: null,
        replayed: false,
        source: 'api',
        hint: null,
        fault: null,
      },
      {
        requestId: first.headers['x-request-id'],
        time: new Date(START_MS).toISOString(),
        method: 'POST',
        path: '/v1/wallet/assetList',
        status: 200,
        code: 0,
        latencyMs: expect.any(Number),
        keyId: acct.keyId,
        idempotencyKey: null,
        replayed: false,
        source: 'api',
        hint: null,
        fault: null,
      },
    ]);
  });

  it('gives the full record: headers (the key redacted) and both bodies, the answer code as responseCode', async () => {
    const acct = await setUp();
    const sent = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT', alias: 'mine' });
    const res = await getRecord(acct.apiKey, sent.headers['x-request-id']);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      code: 0,
      message: 'ok',
      requestId: sent.headers['x-request-id'],
      method: 'POST',
      path: '/v1/card/create',
      status: 200,
      responseCode: null,
      request: {
        headers: { 'x-api-key': '[REDACTED]', 'content-type': 'application/json' },
        body: { amount: 10, currency: 'USDT', alias: 'mine' },
        truncated: false,
      },
      response: { body: sent.body, truncated: false },
    });
    expect(res.body.response.headers['x-request-id']).toBe(sent.headers['x-request-id']);
  });

  it('gives back non-ASCII text of both bodies exactly as sent and answered', async () => {
    const acct = await setUp();
    const alias = 'Café 東京 🍜 ñ';
    const sent = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT', alias });
    const detail = await sb.post(acct.apiKey, '/v1/card/detail', { cardId: sent.body.cardId });
    expect(JSON.stringify(detail.body)).toContain(alias);
    const sentRecord = await getRecord(acct.apiKey, sent.headers['x-request-id']);
    expect(sentRecord.body.request.body.alias).toBe(alias);
    const detailRecord = await getRecord(acct.apiKey, detail.headers['x-request-id']);
    expect(detailRecord.body.response.body).toEqual(detail.body);
  });

  it('records an idempotent replay with its key and replayed: true', async () => {
    const acct = await setUp();
    const headers = { 'Idempotency-Key': 'order-7' };
    await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' }, headers);
    await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' }, headers);
    const rows = (await requests(acct.apiKey)).body.requests;
    expect(rows.map((r: { replayed: boolean; idempotencyKey: string }) => [r.idempotencyKey, r.replayed])).toEqual([
      ['order-7', true],
      ['order-7', false],
    ]);
  });

  it('records an answer given by an injected fault, and never its own reads', async () => {
    const acct = await setUp();
    const rule = { path: '/v1/card/list', respond: { httpStatus: 503, code: 9999 } };
    await sb.post(acct.apiKey, '/sandbox/v1/faults', { rules: [rule] });
    await sb.post(acct.apiKey, '/v1/card/list', {});
    await requests(acct.apiKey);
    const rows = (await requests(acct.apiKey)).body.requests;
    expect(rows.map((r: { path: string; status: number }) => [r.path, r.status])).toEqual([
      ['/v1/card/list', 503],
      ['/sandbox/v1/faults', 200],
    ]);
  });

  it('does not record a request whose key is refused', async () => {
    const acct = await setUp();
    await sb.post(acct.apiKey + 'x', '/v1/wallet/assetList', {});
    expect((await requests(acct.apiKey)).body.requests).toEqual([]);
  });

  it('cuts a stored body at 64 KiB and marks it truncated', async () => {
    const acct = await setUp();
    const sent = await sb.post(acct.apiKey, '/v1/card/detail', { cardId: '9'.repeat(21), note: 'x'.repeat(100_000) });
    const rec = (await getRecord(acct.apiKey, sent.headers['x-request-id'])).body;
    expect(rec.request.truncated).toBe(true);
    expect(rec.request.body).toHaveLength(64 * 1024);
    expect(rec.response.truncated).toBe(false);
  });

  it('keeps the same X-Request-Id sent twice apart: requests/get answers the newer', async () => {
    const acct = await setUp();
    await sb.post(acct.apiKey, '/v1/wallet/assetList', {}, { 'X-Request-Id': 'trace-1' });
    await sb.post(acct.apiKey, '/v1/card/list', {}, { 'X-Request-Id': 'trace-1' });
    expect((await getRecord(acct.apiKey, 'trace-1')).body.path).toBe('/v1/card/list');
  });
});

describe('request log: secrets never recorded', () => {
  it('holds a sensitiveInfo call masked, and neither the database file nor any answer holds the key, PAN or CVV', async ({
    skip,
  }) => {
    dir = mkdtempSync(join(tmpdir(), 'reqlog-'));
    const dbPath = join(dir, 'sandbox.db');
    const acct = await setUp({ dbPath });
    const cardId = await newCard(sb, acct.apiKey, 10);
    const info = await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId });
    const { cardNo, cvv } = info.body as { cardNo: string; cvv: string };
    expect(cardNo).toMatch(/^\d{16}$/);
    // The PAN sent back in a request body, as a string and as a number, is masked as well.
    await sb.post(acct.apiKey, '/v1/card/detail', { cardId: cardNo });
    await sb.post(acct.apiKey, '/v1/card/detail', `{"cardId":${cardNo}}`);
    const hook = await sb.request
      .put('/v1/webhook')
      .set('X-API-KEY', acct.apiKey)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ url: 'http://127.0.0.1:9/hook' }));
    const rotated = await sb.request.post('/v1/webhook/rotate-secret').set('X-API-KEY', acct.apiKey);
    const child = await sb.post(acct.apiKey, '/sandbox/v1/sandboxes/create', {});
    const secrets = [acct.apiKey, cardNo, hook.body.secret, rotated.body.secret, child.body.apiKey];
    expect(secrets.every((s) => typeof s === 'string' && s.length >= 16)).toBe(true);

    const rec = (await getRecord(acct.apiKey, info.headers['x-request-id'])).body;
    expect(rec.response.body).toEqual({ cardNo: '[REDACTED]', cvv: '[REDACTED]', expiryDate: '[REDACTED]' });
    const list = (await requests(acct.apiKey, { limit: 500 })).body;
    const answers = [JSON.stringify(list)];
    for (const r of list.requests) answers.push(JSON.stringify((await getRecord(acct.apiKey, r.requestId)).body));
    const everything = answers.join('\n');
    for (const s of secrets) expect(everything).not.toContain(s);
    expect(everything).not.toContain(`"${cvv}"`);
    expect(everything).toContain('************' + cardNo.slice(-4));

    // The rest searches the bytes of the SQLite file (its write-ahead log checkpointed first).
    if (onPostgres)
      return skip('searches the bytes of a SQLite database file; a PostgreSQL sandbox keeps no file here');
    sqliteOf(sb.deps).pragma('wal_checkpoint(TRUNCATE)');
    const bytes = [dbPath, dbPath + '-wal']
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f).toString('latin1'))
      .join('');
    expect(bytes).toContain('/v1/card/sensitiveInfo');
    for (const s of secrets) expect(bytes).not.toContain(s);
    expect(bytes).not.toContain(`"${cvv}"`);
  });
  it('masks a card number written in groups, in a body or a header, and keeps 22-digit card ids and dates', async () => {
    const acct = await setUp();
    const sent = await sb.post(
      acct.apiKey,
      '/v1/card/detail',
      { cardId: '2026112338404196895652', note: 'paid 2026-06-01 with 4549 2403 7220 9645' },
      { 'X-Note': '4549-2403-7220-9645', 'X-Secret-Thing': 'short' },
    );
    const rec = (await getRecord(acct.apiKey, sent.headers['x-request-id'])).body;
    expect(rec.request.body).toEqual({
      cardId: '2026112338404196895652',
      note: 'paid 2026-06-01 with **** **** **** 9645',
    });
    expect(rec.request.headers).toMatchObject({ 'x-note': '****-****-****-9645', 'x-secret-thing': '[REDACTED]' });
    expect(JSON.stringify(rec)).not.toMatch(/4549[ -]?2403/);
  });

  it('censors a secret field even when its name is written with JSON escapes', async () => {
    const acct = await setUp();
    const sent = await sb.post(acct.apiKey, '/v1/card/detail', '{"cardId":"1","\\u0063vv":"987"}');
    const rec = (await getRecord(acct.apiKey, sent.headers['x-request-id'])).body;
    expect(rec.request.body).toEqual({ cardId: '1', cvv: '[REDACTED]' });
    expect(JSON.stringify(rec)).not.toContain('"987"');
  });
});

describe('sandbox/v1/requests: filters and pages', () => {
  it('one account never sees another account’s records', async () => {
    const a = await setUp();
    const b = await sb.account();
    const mine = await sb.post(a.apiKey, '/v1/wallet/assetList', {});
    await sb.post(b.apiKey, '/v1/card/list', {});
    const bRows = (await requests(b.apiKey)).body.requests;
    expect(bRows.map((r: { path: string }) => r.path)).toEqual(['/v1/card/list']);
    const other = await getRecord(b.apiKey, mine.headers['x-request-id']);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ code: 404, message: expect.any(String) });
  });

  it('filters by exact path and by status or status class', async () => {
    const acct = await setUp();
    await sb.post(acct.apiKey, '/v1/card/list', {});
    await sb.post(acct.apiKey, '/v1/card/detail', { cardId: 'nope' });
    await sb.post(acct.apiKey, '/v1/card/list', { status: 'WRONG' });
    await sb.post(acct.apiKey, '/v1/nowhere', {});
    const paths = async (body: Record<string, unknown>) =>
      (await requests(acct.apiKey, body)).body.requests.map((r: { path: string; status: number }) => [
        r.path,
        r.status,
      ]);
    expect(await paths({ path: '/v1/card/list' })).toEqual([
      ['/v1/card/list', 400],
      ['/v1/card/list', 200],
    ]);
    expect(await paths({ status: '4xx' })).toEqual([
      ['/v1/nowhere', 404],
      ['/v1/card/list', 400],
      ['/v1/card/detail', 400],
    ]);
    expect(await paths({ status: 404 })).toEqual([['/v1/nowhere', 404]]);
    expect(await paths({ status: '2xx', path: '/v1/card/list' })).toEqual([['/v1/card/list', 200]]);
  });

  it('pages with limit and nextCursor until null, without gaps or repeats', async () => {
    const acct = await setUp();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.unshift((await sb.post(acct.apiKey, '/v1/card/list', {})).headers['x-request-id']);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await requests(acct.apiKey, cursor ? { limit: 3, cursor } : { limit: 3 });
      seen.push(...res.body.requests.map((r: { requestId: string }) => r.requestId));
      cursor = res.body.nextCursor ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toEqual(ids);
  });

  it('defaults to 50 records', async () => {
    const acct = await setUp();
    for (let i = 0; i < 51; i++) await sb.post(acct.apiKey, '/v1/card/list', {});
    const res = await requests(acct.apiKey);
    expect(res.body.requests).toHaveLength(50);
    expect(res.body.nextCursor).toEqual(expect.any(String));
  });

  it.each([
    [{ limit: 0 }, 'limit'],
    [{ limit: 501 }, 'limit'],
    [{ status: '4XX' }, 'status'],
    [{ status: 99 }, 'status'],
    [{ cursor: 'bogus' }, 'cursor'],
    [{ pathh: '/v1/card/list' }, 'pathh'],
  ])('refuses %j with a 400 naming the field', async (body, field) => {
    const acct = await setUp();
    const res = await requests(acct.apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
  });

  it('keeps only the last 1,000 records of an account', async () => {
    const acct = await setUp();
    const first = await sb.post(acct.apiKey, '/v1/wallet/assetList', {});
    for (let i = 0; i < 1000; i++) await sb.post(acct.apiKey, '/v1/card/list', {});
    const all: unknown[] = [];
    let cursor: string | undefined;
    do {
      const res = await requests(acct.apiKey, cursor ? { limit: 500, cursor } : { limit: 500 });
      all.push(...res.body.requests);
      cursor = res.body.nextCursor ?? undefined;
    } while (cursor);
    expect(all).toHaveLength(1000);
    expect((await getRecord(acct.apiKey, first.headers['x-request-id'])).status).toBe(404);
  }, 120_000);

  it('answers 400 when the server runs with the request log off, and records nothing', async () => {
    const acct = await setUp({ requestLog: false });
    await sb.post(acct.apiKey, '/v1/card/list', {});
    const res = await requests(acct.apiKey);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/request log is turned off/);
    expect(await sb.deps.store.value('SELECT COUNT(*) FROM request_log')).toBe(0);
  });
});
