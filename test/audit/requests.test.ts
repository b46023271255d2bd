import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

// Fidelity audit of request validation: a 400 must tell the partner the truth about the spec's field rules.

let sb: TestSandbox;
let acct: AccountHandle;
let cardId: string;

it.override({ accountOptions: { balance: 1000 } });
it.beforeEach(async ({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  cardId = (await sb.post(acct.apiKey, '/v1/card/create', { amount: 50, currency: 'USDT' })).body.cardId;
});

describe('optional fields (spec Endpoints: binId, alias, currency of card/deposit, cardId and binId of bill/list)', () => {
  it.each([
    ['/v1/card/create', { amount: 10, currency: 'USDT', binId: null }, 'binId'],
    ['/v1/card/create', { amount: 10, currency: 'USDT', alias: null }, 'alias'],
    ['/v1/card/deposit', { amount: 10, currency: null }, 'currency'],
    ['/v1/bill/list', { cardId: null }, 'cardId'],
    ['/v1/bill/list', { binId: null }, 'binId'],
  ])('%s with %j is a 400 that does not call the optional field required', async (path, body, field) => {
    const res = await sb.post(acct.apiKey, path, path === '/v1/card/deposit' ? { cardId, ...body } : body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toContain(field);
    expect(res.body.message).not.toMatch(/required/);
  });
});
