import { describe, expect } from 'vitest';
import { cardAvailable, worldSnapshot } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox, acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('request validation: 400 {code: 400, message} naming the field, nothing changed', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['amount missing', { currency: 'USDT' }, /amount is required/],
    ['amount as a string', { amount: '10', currency: 'USDT' }, /amount must be a JSON number/],
    ['amount zero', { amount: 0, currency: 'USDT' }, /amount must be a number greater than 0/],
    ['amount negative', { amount: -5, currency: 'USDT' }, /amount must be/],
    ['amount with 7 decimals', { amount: 10.1234567, currency: 'USDT' }, /at most 6 decimal places/],
    ['amount 1e-7', { amount: 1e-7, currency: 'USDT' }, /at most 6 decimal places/],
    ['amount over 1,000,000,000', { amount: 1_000_000_001, currency: 'USDT' }, /at most 1000000000/],
    ['amount a boolean', { amount: true, currency: 'USDT' }, /amount must be a JSON number/],
    ['amount null', { amount: null, currency: 'USDT' }, /amount is required/],
    ['currency missing', { amount: 10 }, /currency is required/],
    ['currency USDC', { amount: 10, currency: 'USDC' }, /currency must be one of USDT/],
    ['currency a number', { amount: 10, currency: 1 }, /currency must be one of USDT/],
    ['binId a number', { amount: 10, currency: 'USDT', binId: 7 }, /binId must be a string/],
    ['binId empty', { amount: 10, currency: 'USDT', binId: '' }, /binId must not be empty/],
    ['alias an object', { amount: 10, currency: 'USDT', alias: {} }, /alias must be a string/],
  ];
  it.each(cases)('card/create rejects %s', async (_name, body, message) => {
    const before = await worldSnapshot(sb);
    const res = await sb.post(acct.apiKey, '/v1/card/create', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(await worldSnapshot(sb)).toEqual(before);
  });

  it.each([
    ['an integer', 10, '9.8'],
    ['one decimal', 10.5, '10.29'],
    ['six decimals', 10.123456, '9.92'],
    ['an exponent', 1e1, '9.8'],
    ['trailing zeros', '10.50', '10.29'],
  ])('card/create accepts an amount written as %s', async (_name, amount, credit) => {
    const body =
      typeof amount === 'string' ? `{"amount": ${amount}, "currency": "USDT"}` : { amount, currency: 'USDT' };
    const res = await sb.post(acct.apiKey, '/v1/card/create', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await cardAvailable(sb, acct.apiKey, res.body.cardId)).toBe(credit);
  });

  it.each([
    ['cardId missing', { amount: 10 }, /cardId is required/],
    ['cardId a number', { cardId: 1, amount: 10 }, /cardId must be a string/],
    ['amount missing', { cardId: 'x' }, /amount is required/],
    ['amount a string', { cardId: 'x', amount: '1' }, /amount must be a JSON number/],
    ['currency USDC', { cardId: 'x', amount: 10, currency: 'USDC' }, /currency must be one of USDT/],
  ])('card/deposit rejects %s', async (_name, body, message) => {
    const res = await sb.post(acct.apiKey, '/v1/card/deposit', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toMatch(message);
  });

  it.each(['detail', 'asset', 'sensitiveInfo', 'freeze', 'unfreeze', 'cancel'])(
    'card/%s requires cardId as a string',
    async (path) => {
      const missing = await sb.post(acct.apiKey, `/v1/card/${path}`, {});
      expect(missing.status).toBe(400);
      expect(missing.body).toEqual({ code: 400, message: 'cardId is required' });
      const typed = await sb.post(acct.apiKey, `/v1/card/${path}`, { cardId: 42 });
      expect(typed.body).toEqual({ code: 400, message: 'cardId must be a string' });
    },
  );

  it('card/list rejects an unknown status', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/list', { status: 'LOST' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/status must be one of/);
  });
});
