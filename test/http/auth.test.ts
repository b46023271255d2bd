import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let acct: AccountHandle;

it.override({ accountOptions: { balance: 10 } });
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const AUTH_FAILED = { code: 11002, message: 'Invalid or revoked API key' };

describe('Authentication (X-API-KEY)', () => {
  it('answers a missing key with 401 code 11002 by default', async () => {
    const res = await sb.post(undefined, '/v1/wallet/assetList', {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual(AUTH_FAILED);
  });

  it('answers a missing key with 403 and an empty body when missingKeyStatus is 403', async () => {
    const other = createTestSandbox({ config: { missingKeyStatus: 403 } });
    const res = await other.post(undefined, '/v1/wallet/assetList', {});
    expect(res.status).toBe(403);
    expect(res.text).toBe('');
    const bad = await other.post('sk_sandbox_wrong', '/v1/wallet/assetList', {});
    expect(bad.status).toBe(401);
    await other.close();
  });

  it('a revoked key fails at once, even right after it was used; the account other keys keep working', async () => {
    const second = await sb.admin('post', `/admin/v1/accounts/${acct.accountId}/keys`);
    expect((await sb.post(acct.apiKey, '/v1/wallet/assetList', {})).status).toBe(200);
    expect((await sb.post(second.body.apiKey, '/v1/wallet/assetList', {})).status).toBe(200);
    await sb.admin('delete', `/admin/v1/accounts/${acct.accountId}/keys/${acct.keyId}`);
    const res = await sb.post(acct.apiKey, '/v1/wallet/assetList', {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual(AUTH_FAILED);
    expect((await sb.post(second.body.apiKey, '/v1/wallet/assetList', {})).status).toBe(200);
  });

  it('answers an unknown key with 401 code 11002', async () => {
    const res = await sb.post('sk_sandbox_unknown', '/v1/card/list', {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual(AUTH_FAILED);
  });

  it('authenticates before routing: an unknown path without a key is 401, with a key 404', async () => {
    expect((await sb.post(undefined, '/v1/nope', {})).status).toBe(401);
    const res = await sb.post(acct.apiKey, '/v1/nope', {});
    expect(res.status).toBe(404);
    expect(res.body.code).toBe(404);
  });

  it('lets an account hold several active keys, and rejects a revoked one (rotation)', async () => {
    const issued = await sb.admin('post', `/admin/v1/accounts/${acct.accountId}/keys`);
    expect(issued.status).toBe(201);
    expect(issued.body.apiKey).toMatch(/^sk_sandbox_[0-9A-Za-z]{40}$/);
    const newKey = issued.body.apiKey as string;
    expect((await sb.post(newKey, '/v1/wallet/assetList', {})).status).toBe(200);
    expect((await sb.post(acct.apiKey, '/v1/wallet/assetList', {})).status).toBe(200);

    const revoked = await sb.admin('delete', `/admin/v1/accounts/${acct.accountId}/keys/${acct.keyId}`);
    expect(revoked.body).toEqual({ code: 0, message: 'ok' });
    const res = await sb.post(acct.apiKey, '/v1/wallet/assetList', {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual(AUTH_FAILED);
    expect((await sb.post(newKey, '/v1/wallet/assetList', {})).status).toBe(200);
  });

  it('stores only a keyed hash of each API key, never the key itself', async () => {
    const dump = JSON.stringify(await sb.deps.store.all('SELECT * FROM api_keys'));
    expect(dump).not.toContain(acct.apiKey);
    expect(dump).not.toContain(acct.apiKey.slice(-20));
  });

  it('guards the simulation API with the same key', async () => {
    expect((await sb.post(undefined, '/sandbox/v1/wallet/seed', { amount: 1 })).status).toBe(401);
    expect((await sb.post('bad', '/sandbox/v1/wallet/seed', { amount: 1 })).status).toBe(401);
  });
});

describe('Operator API authentication', () => {
  it('refuses a wrong bearer token with 401', async () => {
    const res = await sb.post(undefined, '/admin/v1/accounts', {}, { Authorization: 'Bearer nope' });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe(401);
  });

  it('is refused outright when no admin token is configured', async () => {
    const other = createTestSandbox({ config: { adminToken: undefined } });
    const res = await other.admin('post', '/admin/v1/accounts', {});
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/SANDBOX_ADMIN_TOKEN/);
    await other.close();
  });

  it('never accepts a partner key as an operator token', async () => {
    const res = await sb.post(undefined, '/admin/v1/accounts', {}, { Authorization: `Bearer ${acct.apiKey}` });
    expect(res.status).toBe(401);
  });
});
