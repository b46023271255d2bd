import { describe, expect } from 'vitest';
import { cardAvailable, newCard, walletAvailable } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;

it.beforeEach(({ sb: s }) => void (sb = s));

describe('Operator API: accounts', () => {
  it('POST /accounts returns the id, a key shown once, its keyId and the deposit address', async () => {
    const res = await sb.admin('post', '/admin/v1/accounts', { name: 'acme', depositAddress: null, balance: 25 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      accountId: expect.stringMatching(/^acct_[0-9A-Za-z]{16}$/),
      apiKey: expect.stringMatching(/^sk_sandbox_[0-9A-Za-z]{40}$/),
      keyId: expect.stringMatching(/^key_/),
      depositAddress: null,
    });
    expect(await walletAvailable(sb, res.body.apiKey)).toBe('25');
  });

  it('defaults: depositFeeRate 0.02, requireIdempotencyKey false, the default BIN, a generated TRON address', async () => {
    const { accountId } = (await sb.admin('post', '/admin/v1/accounts', {})).body;
    const res = await sb.admin('get', `/admin/v1/accounts/${accountId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      accountId,
      depositFeeRate: '0.02',
      requireIdempotencyKey: false,
      defaultBinId: 'VISA-EFI-454924',
      depositAddress: expect.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
    });
    expect(res.body.keys).toHaveLength(1);
    expect(JSON.stringify(res.body)).not.toMatch(/sk_sandbox_[0-9A-Za-z]{40}/);
  });

  it('accepts depositFeeRate as a decimal string or a number', async () => {
    const a = (await sb.admin('post', '/admin/v1/accounts', { depositFeeRate: '0.015', depositAddress: null })).body;
    const b = (await sb.admin('post', '/admin/v1/accounts', { depositFeeRate: 0.01, depositAddress: null })).body;
    expect((await sb.admin('get', `/admin/v1/accounts/${a.accountId}`)).body.depositFeeRate).toBe('0.015');
    expect((await sb.admin('get', `/admin/v1/accounts/${b.accountId}`)).body.depositFeeRate).toBe('0.01');
  });

  it.each([
    [{ depositFeeRate: '1' }, /depositFeeRate/],
    [{ depositFeeRate: '-0.1' }, /depositFeeRate/],
    [{ depositFeeRate: 'two' }, /depositFeeRate/],
    [{ depositFeeRate: '0.0000001' }, /depositFeeRate/],
    [{ requireIdempotencyKey: 'yes' }, /requireIdempotencyKey must be a boolean/],
    [{ balance: -1 }, /balance/],
    [{ balance: '10' }, /balance/],
    [{ name: 5 }, /name must be a string/],
    [{ depositAddress: 'not-an-address' }, /depositAddress/],
  ])('POST /accounts rejects %j with 400', async (body, message) => {
    const res = await sb.admin('post', '/admin/v1/accounts', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(await sb.deps.store.value('SELECT COUNT(*) FROM accounts')).toBe(0);
  });

  it('PATCH changes the fee rate, which the next card/create and binList use', async () => {
    const acct = await sb.account({ balance: 100 });
    const res = await sb.admin('patch', `/admin/v1/accounts/${acct.accountId}`, { depositFeeRate: '0' });
    expect(res.status).toBe(200);
    expect(res.body.depositFeeRate).toBe('0');
    const cardId = await newCard(sb, acct.apiKey, 50);
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('50');
    const bins = await sb.post(acct.apiKey, '/v1/card/binList', {});
    expect(bins.body.availableCardBinList[0].fee.deposit).toBe('0');
  });

  it('PATCH requireIdempotencyKey makes a mutation without a key fail with 4210, from the very next request', async () => {
    const acct = await sb.account({ balance: 100 });
    expect((await sb.post(acct.apiKey, '/v1/wallet/assetList', {})).status).toBe(200);
    await sb.admin('patch', `/admin/v1/accounts/${acct.accountId}`, { requireIdempotencyKey: true });
    const res = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(4210);
  });

  it('PATCH leaves fields it does not name unchanged, and validates the ones it does', async () => {
    const acct = await sb.account({ name: 'keep', depositFeeRate: '0.03' });
    const bad = await sb.admin('patch', `/admin/v1/accounts/${acct.accountId}`, { depositFeeRate: 'x' });
    expect(bad.status).toBe(400);
    const res = await sb.admin('patch', `/admin/v1/accounts/${acct.accountId}`, { requireIdempotencyKey: true });
    expect(res.body).toMatchObject({ name: 'keep', depositFeeRate: '0.03', requireIdempotencyKey: true });
  });

  it('a deposit address another account holds is a 400 on create and on PATCH, and changes nothing', async () => {
    const holder = (await sb.admin('post', '/admin/v1/accounts', {})).body;
    const other = (await sb.admin('post', '/admin/v1/accounts', { depositAddress: null })).body;
    const taken = { depositAddress: holder.depositAddress };
    const created = await sb.admin('post', '/admin/v1/accounts', taken);
    const patched = await sb.admin('patch', `/admin/v1/accounts/${other.accountId}`, taken);
    for (const res of [created, patched]) {
      expect([res.status, res.body.code]).toEqual([400, 400]);
      expect(res.body.message).toMatch(/^depositAddress is already the deposit address of another account/);
    }
    expect((await sb.admin('get', `/admin/v1/accounts/${other.accountId}`)).body.depositAddress).toBeNull();
    const again = await sb.admin('patch', `/admin/v1/accounts/${holder.accountId}`, taken);
    expect(again.status).toBe(200);
  });

  it('refuses an unknown field of an operator body with a 400 naming it, and changes nothing', async () => {
    const { accountId } = (await sb.admin('post', '/admin/v1/accounts', { depositAddress: null })).body;
    const res = await sb.admin('patch', `/admin/v1/accounts/${accountId}`, { name: 'x', requireIdempotency: true });
    expect([res.status, res.body.code]).toEqual([400, 400]);
    expect(res.body.message).toBe('requireIdempotency: unknown field (did you mean requireIdempotencyKey?)');
    expect((await sb.admin('get', `/admin/v1/accounts/${accountId}`)).body.name).not.toBe('x');
    const keys = await sb.admin('post', `/admin/v1/accounts/${accountId}/keys`, { label: 'ci' });
    expect([keys.status, keys.body.message]).toEqual([400, 'label: unknown field (it takes no field)']);
    expect((await sb.admin('post', `/admin/v1/accounts/${accountId}/keys`)).status).toBe(201);
  });

  it('GET and PATCH of an unknown account are 404', async () => {
    expect((await sb.admin('get', '/admin/v1/accounts/acct_nope')).status).toBe(404);
    expect((await sb.admin('patch', '/admin/v1/accounts/acct_nope', { name: 'x' })).status).toBe(404);
  });
});

describe('Operator API: keys', () => {
  it('issues another key shown once and revokes a key, which then answers 401 code 11002', async () => {
    const acct = await sb.account();
    const issued = await sb.admin('post', `/admin/v1/accounts/${acct.accountId}/keys`);
    expect(issued.status).toBe(201);
    const revoke = await sb.admin('delete', `/admin/v1/accounts/${acct.accountId}/keys/${issued.body.keyId}`);
    expect(revoke.body).toEqual({ code: 0, message: 'ok' });
    const res = await sb.post(issued.body.apiKey, '/v1/card/list', {});
    expect(res.status).toBe(401);
    expect(res.body.code).toBe(11002);
    const view = await sb.admin('get', `/admin/v1/accounts/${acct.accountId}`);
    const revokedOf = (id: string) => view.body.keys.find((k: { keyId: string }) => k.keyId === id).revokedAt;
    expect(revokedOf(issued.body.keyId)).toBe(new Date(sb.wall.ms).toISOString());
    expect(revokedOf(acct.keyId)).toBeNull();
  });

  it('revoking an unknown key, or another account key through this account, is 404', async () => {
    const a = await sb.account();
    const b = await sb.account();
    expect((await sb.admin('delete', `/admin/v1/accounts/${a.accountId}/keys/key_nope`)).status).toBe(404);
    expect((await sb.admin('delete', `/admin/v1/accounts/${a.accountId}/keys/${b.keyId}`)).status).toBe(404);
    expect((await sb.post(b.apiKey, '/v1/card/list', {})).status).toBe(200);
  });

  it('revoking twice is harmless', async () => {
    const a = await sb.account();
    await sb.admin('delete', `/admin/v1/accounts/${a.accountId}/keys/${a.keyId}`);
    expect((await sb.admin('delete', `/admin/v1/accounts/${a.accountId}/keys/${a.keyId}`)).status).toBe(200);
  });
});

describe('Operator API: BINs', () => {
  it('PUT creates a BIN that binList shows with decimal strings, the caller rate as fee.deposit', async () => {
    const acct = await sb.account();
    const res = await sb.admin('put', '/admin/v1/bins/MC-555555', {
      title: 'Blue',
      bin: '555555',
      cardNetwork: 'Mastercard',
      fee: { deposit: '0.5', fx: '0.01', card: '2.5', atm: '0.03' },
      limit: { spendDaily: '500', minimalDeposit: '10' },
    });
    expect(res.status).toBe(200);
    const bins = (await sb.post(acct.apiKey, '/v1/card/binList', {})).body.availableCardBinList;
    expect(bins[1]).toEqual({
      id: 'MC-555555',
      title: 'Blue',
      bin: '555555',
      cardNetwork: 'Mastercard',
      fee: { deposit: '0.02', fx: '0.01', card: '2.5', atm: '0.03' },
      limit: { spendDaily: '500', minimalDeposit: '10' },
      enabled: true,
    });
  });

  it('PUT updates only the fields it names; cards on the BIN get its digits and brand', async () => {
    const acct = await sb.account({ balance: 100 });
    await sb.admin('put', '/admin/v1/bins/MC-555555', { bin: '555555', cardNetwork: 'Mastercard' });
    await sb.admin('put', '/admin/v1/bins/MC-555555', { title: 'Renamed' });
    const created = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT', binId: 'MC-555555' });
    expect(created.body.cardBrand).toBe('Mastercard');
    const info = await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId: created.body.cardId });
    expect(info.body.cardNo).toMatch(/^555555/);
  });

  it.each([
    [{ bin: '12' }, /bin must be 6 to 8 digits/],
    [{ fee: { card: 2 } }, /fee.card must be a decimal string/],
    [{ fee: { fx: '2' } }, /fee.fx/],
    [{ limit: 'x' }, /limit must be an object/],
    [{ enabled: 'no' }, /enabled must be a boolean/],
    [{ inventory: -1 }, /inventory/],
  ])('PUT rejects %j with 400', async (body, message) => {
    const res = await sb.admin('put', '/admin/v1/bins/NEW-BIN', body);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
  });

  it('PUT rejects a malformed BIN id', async () => {
    const res = await sb.admin('put', `/admin/v1/bins/${encodeURIComponent('bad id!')}`, {});
    expect(res.status).toBe(400);
  });
});

describe('Operator API token rules', () => {
  it('refuses a missing Authorization header with 401', async () => {
    const res = await sb.post(undefined, '/admin/v1/accounts', {});
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 401, message: 'Invalid operator token' });
  });

  it('refuses a token that is a prefix of the real one', async () => {
    const res = await sb.post(undefined, '/admin/v1/accounts', {}, { Authorization: 'Bearer test-admin' });
    expect(res.status).toBe(401);
  });

  it('refuses a non-Bearer scheme', async () => {
    const res = await sb.post(undefined, '/admin/v1/accounts', {}, { Authorization: 'Basic test-admin-token' });
    expect(res.status).toBe(401);
  });
});

describe('Operator API: BIN digits are fixed once cards exist', () => {
  it('refuses to change the digits of a BIN with issued cards, so their numbers keep ending in the masked digits', async () => {
    const acct = await sb.account({ balance: 100 });
    const created = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    const res = await sb.admin('put', '/admin/v1/bins/VISA-EFI-454924', { bin: '411111' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: 'bin cannot change once cards are issued on this BIN' });
    const info = await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId: created.body.cardId });
    expect(info.body.cardNo.slice(-4)).toBe(created.body.maskedCardNo.slice(-4));
    // Other fields, and the same digits, may still be set.
    expect((await sb.admin('put', '/admin/v1/bins/VISA-EFI-454924', { bin: '454924', title: 'Renamed' })).status).toBe(
      200,
    );
  });

  it('allows changing the digits of a BIN without cards', async () => {
    await sb.admin('put', '/admin/v1/bins/NEW', { bin: '411111' });
    expect((await sb.admin('put', '/admin/v1/bins/NEW', { bin: '522222' })).status).toBe(200);
  });
});
