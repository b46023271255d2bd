import { describe, expect } from 'vitest';
import { newCard } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

// docs/design.md section 3 (Responses): which bodies carry {code, message} and which are bare objects.
let sb: TestSandbox;
let acct: AccountHandle;
const OK = { code: 0, message: 'ok' };

it.override({ accountOptions: { balance: 100, depositAddress: 'auto' } });
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const post = (path: string, body: Record<string, unknown> = {}) => sb.post(acct.apiKey, path, body);

describe('Responses', () => {
  it('action endpoints (deposit, freeze, unfreeze, cancel, webhook DELETE) answer exactly {code: 0, message: "ok"}', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    expect((await post('/v1/card/deposit', { cardId, amount: 5 })).body).toEqual(OK);
    await sb.advance(acct.apiKey, 3);
    expect((await post('/v1/card/freeze', { cardId })).body).toEqual(OK);
    expect((await post('/v1/card/unfreeze', { cardId })).body).toEqual(OK);
    expect((await post('/v1/card/cancel', { cardId })).body).toEqual(OK);
    const del = await sb.request.delete('/v1/webhook').set('X-API-KEY', acct.apiKey);
    expect(del.body).toEqual(OK);
  });

  it('wallet/assetList, wallet/getAddress, card/binList and bill/list carry code 0 and message ok beside their data', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    const answers = [
      await post('/v1/wallet/assetList'),
      await post('/v1/wallet/getAddress', { currency: 'USDT', network: 'TRX' }),
      await post('/v1/card/binList'),
      await post('/v1/bill/list', { cardId }),
    ];
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject(OK);
      expect(Object.keys(res.body).length).toBeGreaterThan(2);
    }
  });

  it('card/create, list, detail, asset, sensitiveInfo and the webhook GET/PUT/rotate bodies are bare objects', async () => {
    const created = await post('/v1/card/create', { amount: 10, currency: 'USDT' });
    const { cardId } = created.body;
    const agent = sb.request;
    const put = await agent
      .put('/v1/webhook')
      .set('X-API-KEY', acct.apiKey)
      .set('Content-Type', 'application/json')
      .send({ url: 'https://example.com/h' });
    const answers = [
      created,
      await post('/v1/card/list'),
      await post('/v1/card/detail', { cardId }),
      await post('/v1/card/asset', { cardId }),
      await post('/v1/card/sensitiveInfo', { cardId }),
      put,
      await agent.get('/v1/webhook').set('X-API-KEY', acct.apiKey),
      await agent
        .post('/v1/webhook/rotate-secret')
        .set('X-API-KEY', acct.apiKey)
        .set('Content-Type', 'application/json')
        .send('{}'),
    ];
    for (const res of answers) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).not.toHaveProperty('code');
      expect(res.body).not.toHaveProperty('message');
    }
  });
});

describe('X-Request-Id', () => {
  it('is on every response: the simulation API, the operator API, /healthz and a 401', async () => {
    const answers = [
      await post('/sandbox/v1/clock', {}),
      await sb.admin('get', `/admin/v1/accounts/${acct.accountId}`),
      await sb.request.get('/healthz'),
      await sb.post(undefined, '/v1/card/list', {}),
    ];
    for (const res of answers) expect(res.headers['x-request-id']).toMatch(/^req_/);
  });
});
