import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newCard, worldSnapshot } from '../helpers/core.js';
import { createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let acct: AccountHandle;

beforeEach(async () => {
  sb = createTestSandbox();
  acct = await sb.account({ balance: 100 });
});
afterEach(() => sb.close());

/** A raw POST with a chosen Content-Type and body text. */
const raw = (path: string, contentType: string | undefined, text: string, headers: Record<string, string> = {}) => {
  let req = request(sb.server).post(path).set('X-API-KEY', acct.apiKey);
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
    ['a text/plain content type', 'text/plain', '{"amount": 10, "currency": "USDT"}', 'Content-Type must be application/json'],
    ['a form content type', 'application/x-www-form-urlencoded', 'amount=10&currency=USDT', 'Content-Type must be application/json'],
    ['a look-alike content type', 'application/jsonp', '{"amount": 10, "currency": "USDT"}', 'Content-Type must be application/json'],
  ])('card/create with %s is 400 code 400', async (_name, type, text, message) => {
    const before = worldSnapshot(sb, acct.accountId);
    const res = await raw(CREATE, type, text, { 'Idempotency-Key': 'k-bad-input' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
    expect(worldSnapshot(sb, acct.accountId)).toEqual(before);
  });

  it('without any Content-Type is 400', async () => {
    const res = await request(sb.server).post(CREATE).set('X-API-KEY', acct.apiKey).send(Buffer.from('{"amount":10,"currency":"USDT"}'));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: 'Content-Type must be application/json' });
  });

  it('accepts a charset parameter in the Content-Type', async () => {
    const res = await raw(CREATE, 'application/json; charset=utf-8', '{"amount": 10, "currency": "USDT"}');
    expect(res.status).toBe(200);
    const upper = await raw('/v1/card/list', 'Application/JSON;charset=UTF-8', '{}');
    expect(upper.status).toBe(200);
  });

  it('answers a body over 1 MiB with 413 {code: 400, message} and changes nothing', async () => {
    const before = worldSnapshot(sb, acct.accountId);
    const big = JSON.stringify({ amount: 10, currency: 'USDT', alias: 'x'.repeat(1024 * 1024) });
    const res = await raw(CREATE, 'application/json', big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ code: 400, message: 'Request body is larger than 1 MiB' });
    expect(worldSnapshot(sb, acct.accountId)).toEqual(before);
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
    const req = method === 'get' ? request(sb.server).get(path) : request(sb.server).post(path).set('Content-Type', 'application/json');
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
    const paths = ['wallet/assetList', 'wallet/getAddress', 'card/binList', 'card/create', 'card/list', 'card/detail',
      'card/asset', 'card/deposit', 'card/sensitiveInfo', 'card/freeze', 'card/unfreeze', 'card/cancel', 'bill/list'];
    const junk = [{ amount: 'x', cardId: [], currency: {}, status: 5, pageNumber: 'a', network: null }, { amount: 1e308, cardId: 'x'.repeat(300) }];
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
