import { describe, expect } from 'vitest';
import { cardAvailable, newCard, walletAvailable, worldSnapshot } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { putBin } from './bins.js';
import { type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox, acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const create = (body: Record<string, unknown>, key = acct.apiKey) => sb.post(key, '/v1/card/create', body);

describe('card/create and card/deposit errors 3001 and 8001', () => {
  it('fails with 3001 and the documented message when the USDT balance is below the amount, moving nothing', async () => {
    const before = await worldSnapshot(sb);
    const res = await create({ amount: 100.000001, currency: 'USDT' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 3001,
      message: 'Your balance is too low for this action. Please add funds to your wallet and try again.',
    });
    expect(await worldSnapshot(sb)).toEqual(before);
  });

  it('accepts an amount equal to the whole balance', async () => {
    await newCard(sb, acct.apiKey, 100);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('0');
  });

  it('fails with 8001 below the BIN minimalDeposit and accepts exactly the minimum', async () => {
    const res = await create({ amount: 0.999999, currency: 'USDT' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(8001);
    const cardId = await newCard(sb, acct.apiKey, 1);
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('0.98');
  });

  it('fails with 8001 when the fees consume the amount (credit 0) and accepts a credit of one cent', async () => {
    const zero = await sb.account({ balance: 100, depositFeeRate: '0' });
    await putBin(sb, 'FEE-BIN', { bin: '411111', fee: { card: '5' }, limit: { minimalDeposit: '1' } });
    const res = await create({ amount: 5.009999, currency: 'USDT', binId: 'FEE-BIN' }, zero.apiKey);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(8001);
    const cardId = await newCard(sb, zero.apiKey, 5.01, { binId: 'FEE-BIN' });
    expect(await cardAvailable(sb, zero.apiKey, cardId)).toBe('0.01');
  });

  it('checks the amount (8001) before the balance (3001)', async () => {
    const poor = await sb.account();
    const res = await create({ amount: 0.5, currency: 'USDT' }, poor.apiKey);
    expect(res.body.code).toBe(8001);
  });

  it('card/deposit fails with 3001 and 8001 on the same rules, moving nothing', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    const before = await worldSnapshot(sb);
    const poor = await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 50.01 });
    expect(poor.status).toBe(400);
    expect(poor.body.code).toBe(3001);
    const small = await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 0.5 });
    expect(small.body.code).toBe(8001);
    expect(await worldSnapshot(sb)).toEqual(before);
  });
});
