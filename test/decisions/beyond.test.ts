import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

// Decisions the code takes where neither the spec nor the design note says anything; pinned so they never drift.
let sb: TestSandbox;
let acct: AccountHandle;

it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('request bodies', () => {
  it('ignores fields it does not know, as a forward-compatible client expects', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT', futureField: { x: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.cardStatus).toBe('ACTIVE');
  });

  it('an empty body is not {}: 400 "request body is not valid JSON"', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/list', '');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: 'request body is not valid JSON' });
  });
});

describe('card/list status', () => {
  it('is case-sensitive: "active" is 400', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/list', { status: 'active' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
  });
});

describe('X-Request-Id from the caller', () => {
  it('keeps a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const kept = await sb.post(acct.apiKey, '/v1/card/list', {}, { 'X-Request-Id': 'trace-42.a_b' });
    expect(kept.headers['x-request-id']).toBe('trace-42.a_b');
    const replaced = await sb.post(acct.apiKey, '/v1/card/list', {}, { 'X-Request-Id': 'bad id with spaces' });
    expect(replaced.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{20}$/);
  });
});

describe('faults helpers', () => {
  it('are never faulted themselves, so a rule can always be cleared', async () => {
    const rule = { path: '/sandbox/v1/faults/clear', respond: { httpStatus: 503, code: 9999 } };
    expect(
      (
        await sb.post(acct.apiKey, '/sandbox/v1/faults', {
          rules: [rule, { path: '/v1/card/list', respond: { httpStatus: 503, code: 9999 } }],
        })
      ).status,
    ).toBe(200);
    const cleared = await sb.post(acct.apiKey, '/sandbox/v1/faults/clear', {});
    expect(cleared.status).toBe(200);
    expect((await sb.post(acct.apiKey, '/v1/card/list', {})).status).toBe(200);
  });
});
