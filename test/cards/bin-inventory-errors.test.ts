import { describe, expect } from 'vitest';
import { newCard, worldSnapshot } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { DEFAULT_BIN, putBin } from './bins.js';
import { type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox, acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const create = (body: Record<string, unknown>, key = acct.apiKey) => sb.post(key, '/v1/card/create', body);

describe('card/create BIN and inventory errors', () => {
  it('fails with 4004 for an unknown BIN', async () => {
    const res = await create({ amount: 10, currency: 'USDT', binId: 'NO-SUCH-BIN' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 4004, message: 'Card BIN not found' });
  });

  it('fails with 4005 for a disabled BIN', async () => {
    await putBin(sb, 'OFF-BIN', { bin: '411111', enabled: false });
    const res = await create({ amount: 10, currency: 'USDT', binId: 'OFF-BIN' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(4005);
  });

  it('fails with 4009 when no inventory is left, moving no funds and creating nothing', async () => {
    await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: DEFAULT_BIN, available: 1 });
    await newCard(sb, acct.apiKey, 10);
    const before = await worldSnapshot(sb);
    const res = await create({ amount: 10, currency: 'USDT' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(4009);
    expect(await worldSnapshot(sb)).toEqual(before);
  });

  it('fails with 4010 while provisioning, moving no funds; a retry after provisioning succeeds', async () => {
    await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: DEFAULT_BIN, provisioning: true });
    const before = await worldSnapshot(sb);
    const res = await create({ amount: 10, currency: 'USDT' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(4010);
    expect(await worldSnapshot(sb)).toEqual(before);
    await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: DEFAULT_BIN, provisioning: false });
    await newCard(sb, acct.apiKey, 10);
  });

  it('inventory set for one account does not affect another account', async () => {
    const set = await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: DEFAULT_BIN, available: 0 });
    expect(set.body).toMatchObject({ code: 0, available: 0 });
    expect((await create({ amount: 10, currency: 'USDT' })).body.code).toBe(4009);
    const other = await sb.account({ balance: 10 });
    const created = await create({ amount: 10, currency: 'USDT' }, other.apiKey);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
  });
});
