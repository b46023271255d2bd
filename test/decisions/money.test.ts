import { describe, expect } from 'vitest';
import { newCard, walletAvailable, worldSnapshot } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

// docs/design.md section 1 (Money): the decisions no other test pins down on their own.
let sb: TestSandbox;
let acct: AccountHandle;

it.override({ accountOptions: {} });
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const seed = (amount: number) => sb.post(acct.apiKey, '/sandbox/v1/wallet/seed', { amount });

describe('Money: decimal strings', () => {
  it('have no exponent and no trailing zeros ("49", "10.5", "0.000001")', async () => {
    await seed(0.000001);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('0.000001');
    await seed(10.499999);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('10.5');
    await seed(39.5);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('50');
    const cardId = await newCard(sb, acct.apiKey, 50);
    const asset = await sb.post(acct.apiKey, '/v1/card/asset', { cardId });
    expect(asset.body.availableAmount).toBe('49');
  });
});

describe('Money: order of amount checks', () => {
  it('validation (400) comes before 8001 and 3001', async () => {
    // An empty wallet (3001) and an amount below minimalDeposit (8001): the malformed amount still wins.
    const before = await worldSnapshot(sb);
    const res = await sb.post(acct.apiKey, '/v1/card/create', { amount: 0.1234567, currency: 'USDT' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toMatch(/amount/);
    const below = await sb.post(acct.apiKey, '/v1/card/create', { amount: 0.5, currency: 'USDT' });
    expect(below.body.code).toBe(8001);
    expect(await worldSnapshot(sb)).toEqual(before);
  });

  it('1 USDT funds 1 USD on the card: no FX at the card step', async () => {
    const zero = await sb.account({ balance: 100, depositFeeRate: '0' });
    const cardId = await newCard(sb, zero.apiKey, 37.25);
    const asset = await sb.post(zero.apiKey, '/v1/card/asset', { cardId });
    expect(asset.body).toEqual({ availableAmount: '37.25', frozenAmount: '0', currency: 'USD' });
  });
});
