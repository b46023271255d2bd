import http from 'node:http';
import { describe, expect } from 'vitest';
import { expectRefusedUnchanged, newCard, worldSnapshot } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { listen } from '../helpers/loopback.js';

let sb: TestSandbox;
let acct: AccountHandle;

it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

/** A raw POST with a chosen Content-Type and body text. */
const raw = (path: string, contentType: string | undefined, text: string, headers: Record<string, string> = {}) => {
  let req = sb.request.post(path).set('X-API-KEY', acct.apiKey);
  if (contentType !== undefined) req = req.set('Content-Type', contentType);
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  return req.send(text);
};

const expectErrorBody = (body: unknown, code: number) => {
  expect(Object.keys(body as object).sort()).toEqual(['code', 'message']);
  expect((body as { code: number }).code).toBe(code);
  expect(typeof (body as { message: unknown }).message).toBe('string');
};

describe('Errors: malformed requests get 4xx {code, message} and change nothing', () => {
  const CREATE = '/v1/card/create';
  it.each([
    ['malformed JSON', 'application/json', '{"amount": 10,', 'request body is not valid JSON'],
    ['an empty body', 'application/json', '', 'request body is not valid JSON'],
    ['an array body', 'application/json', '[{"amount": 10, "currency": "USDT"}]', 'request body must be a JSON object'],
    ['a null body', 'application/json', 'null', 'request body must be a JSON object'],
    ['a string body', 'application/json', '"amount"', 'request body must be a JSON object'],
    [
      'a text/plain content type',
      'text/plain',
      '{"amount": 10, "currency": "USDT"}',
      'Content-Type must be application/json',
    ],
    [
      'a form content type',
      'application/x-www-form-urlencoded',
      'amount=10&currency=USDT',
      'Content-Type must be application/json',
    ],
    [
      'a look-alike content type',
      'application/jsonp',
      '{"amount": 10, "currency": "USDT"}',
      'Content-Type must be application/json',
    ],
  ])('card/create with %s is 400 code 400', async (_name, type, text, message) => {
    const res = await expectRefusedUnchanged(sb, 400, () =>
      raw(CREATE, type, text, { 'Idempotency-Key': 'k-bad-input' }),
    );
    expect(res.body).toEqual({ code: 400, message });
  });

  it('without any Content-Type is 400', async () => {
    const res = await sb.request
      .post(CREATE)
      .set('X-API-KEY', acct.apiKey)
      .send(Buffer.from('{"amount":10,"currency":"USDT"}'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: 'Content-Type must be application/json' });
  });

  it('accepts a charset parameter in the Content-Type', async () => {
    const res = await raw(CREATE, 'application/json; charset=utf-8', '{"amount": 10, "currency": "USDT"}');
    expect(res.status).toBe(200);
    const upper = await raw('/v1/card/list', 'Application/JSON;charset=UTF-8', '{}');
    expect(upper.status).toBe(200);
  });

  it('the "changes nothing" check sees one changed column of one row of another account', async () => {
    const other = await sb.account({});
    const before = await worldSnapshot(sb);
    await sb.deps.store.run('UPDATE accounts SET name = name || ? WHERE id = ?', ['.', other.accountId]);
    expect(await worldSnapshot(sb)).not.toEqual(before);
  });

  it('answers a body over 1 MiB with 413 {code: 400, message} and changes nothing', async () => {
    const before = await worldSnapshot(sb);
    const big = JSON.stringify({ amount: 10, currency: 'USDT', alias: 'x'.repeat(1024 * 1024) });
    const res = await raw(CREATE, 'application/json', big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ code: 400, message: 'Request body is larger than 1 MiB' });
    expect(await worldSnapshot(sb)).toEqual(before);
  });

  it('answers a chunked body (no Content-Length) over 1 MiB with 413 too', async () => {
    const { port } = new URL(await listen(sb.server));
    try {
      const res = await new Promise<{ status?: number; text: string }>((resolve, reject) => {
        const req = http.request(
          {
            port,
            host: '127.0.0.1',
            method: 'POST',
            path: '/v1/card/create',
            headers: { 'content-type': 'application/json', 'x-api-key': acct.apiKey, 'transfer-encoding': 'chunked' },
          },
          (r) => {
            let text = '';
            r.on('data', (d) => (text += d));
            r.on('end', () => resolve({ status: r.statusCode, text }));
          },
        );
        req.on('error', reject);
        req.write('{"amount":10,"currency":"USDT","alias":"');
        for (let i = 0; i < 12; i++) req.write('x'.repeat(100_000));
        req.end('"}');
      });
      expect(res.status).toBe(413);
      expect(JSON.parse(res.text)).toEqual({ code: 400, message: 'Request body is larger than 1 MiB' });
      expect((await sb.post(acct.apiKey, '/v1/card/list', {})).body.cardList).toEqual([]);
    } finally {
      sb.server.close();
    }
  });

  it('accepts a body just under 1 MiB (then validates its fields)', async () => {
    const body = JSON.stringify({ amount: 10, currency: 'USDT', alias: 'x'.repeat(1024 * 1024 - 100) });
    const res = await raw(CREATE, 'application/json', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('alias must be at most 256 characters');
  });

  it.each([
    ['an unknown /v1 path', 'post', '/v1/card/nope'],
    ['GET on a POST endpoint', 'get', '/v1/card/list'],
    ['an unknown top-level path', 'post', '/v2/card/list'],
    ['the simulation API under /v1', 'post', '/v1/wallet/seed'],
  ])('%s is 404 {code: 404, message}', async (_name, method, path) => {
    const req = method === 'get' ? sb.request.get(path) : sb.request.post(path).set('Content-Type', 'application/json');
    const res = await req.set('X-API-KEY', acct.apiKey);
    expect(res.status).toBe(404);
    expectErrorBody(res.body, 404);
  });

  it('every business error has exactly {code, message}', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    const bodies = [
      await sb.post(acct.apiKey, '/v1/card/create', { amount: 1000, currency: 'USDT' }),
      await sb.post(acct.apiKey, '/v1/card/create', { amount: 0.1, currency: 'USDT' }),
      await sb.post(acct.apiKey, '/v1/card/detail', { cardId: 'nope' }),
      await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT', binId: 'nope' }),
      await sb.post('wrong', '/v1/card/detail', { cardId }),
    ];
    expect(bodies.map((r) => r.status)).toEqual([400, 400, 400, 400, 401]);
    bodies.forEach((r, i) => expectErrorBody(r.body, [3001, 8001, 4001, 4004, 11002][i]!));
  });

  it('never answers 500 to bad input on any partner endpoint', async () => {
    const paths = [
      'wallet/assetList',
      'wallet/getAddress',
      'card/binList',
      'card/create',
      'card/list',
      'card/detail',
      'card/asset',
      'card/deposit',
      'card/sensitiveInfo',
      'card/freeze',
      'card/unfreeze',
      'card/cancel',
      'bill/list',
    ];
    const junk = [
      { amount: 'x', cardId: [], currency: {}, status: 5, pageNumber: 'a', network: null },
      { amount: 1e308, cardId: 'x'.repeat(300) },
    ];
    for (const path of paths) {
      for (const body of junk) {
        const res = await sb.post(acct.apiKey, `/v1/${path}`, body);
        expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBeLessThan(500);
      }
    }
  });

  it('every response carries X-Request-Id, errors included', async () => {
    const res = await raw('/v1/card/create', 'application/json', '{');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });
});

describe('Order of checks: auth, route, validation, idempotency, existence, state, inventory, amount, balance', () => {
  const DEFAULT_BIN = 'VISA-EFI-454924';
  it('auth (401) before validation: malformed JSON without a key is 401', async () => {
    const res = await sb.request.post('/v1/card/create').set('Content-Type', 'application/json').send('{');
    expect(res.status).toBe(401);
  });

  it('validation (400) before idempotency: a bad body under a used key is 400, not 4211', async () => {
    await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' }, { 'Idempotency-Key': 'o1' });
    const res = await sb.post(
      acct.apiKey,
      '/v1/card/create',
      { amount: '10', currency: 'USDT' },
      { 'Idempotency-Key': 'o1' },
    );
    expect(res.body.code).toBe(400);
  });

  it('idempotency (4211) before existence (4001)', async () => {
    await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' }, { 'Idempotency-Key': 'o2' });
    const res = await sb.post(acct.apiKey, '/v1/card/freeze', { cardId: 'nope' }, { 'Idempotency-Key': 'o2' });
    expect(res.body.code).toBe(4211);
  });

  it('existence (4004) before amount (8001) and balance (3001)', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/create', { amount: 0.5, currency: 'USDT', binId: 'nope' });
    expect(res.body.code).toBe(4004);
  });

  it('BIN disabled (4005) before inventory (4009)', async () => {
    await sb.admin('put', '/admin/v1/bins/OFF', { bin: '411111', enabled: false, inventory: 0 });
    const res = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT', binId: 'OFF' });
    expect(res.body.code).toBe(4005);
  });

  it('inventory (4009) before amount (8001) and balance (3001)', async () => {
    await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: DEFAULT_BIN, available: 0 });
    expect((await sb.post(acct.apiKey, '/v1/card/create', { amount: 0.5, currency: 'USDT' })).body.code).toBe(4009);
    expect((await sb.post(acct.apiKey, '/v1/card/create', { amount: 1000, currency: 'USDT' })).body.code).toBe(4009);
  });

  it('a BIN with no inventory left in the catalogue fails with 4009', async () => {
    await sb.admin('put', '/admin/v1/bins/EMPTY', { bin: '411111', inventory: 0 });
    expect(
      (await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT', binId: 'EMPTY' })).body.code,
    ).toBe(4009);
  });

  it('state (4007 settling) before amount and balance on card/deposit', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 10 });
    expect((await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 0.5 })).body.code).toBe(4007);
    expect((await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 1000 })).body.code).toBe(4007);
  });

  it('state (4008) before amount on card/deposit', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
    expect((await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 0.5 })).body.code).toBe(4008);
  });
});
