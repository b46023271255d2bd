import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

// A body too deep or too large to parse cheaply is a 400 before JSON.parse sees it, so one
// tenant's 1 MB of nested arrays cannot stall the event loop every tenant shares.

// The documented bounds (docs/hosted.md), written here rather than imported from the code they check.
const MAX_JSON_DEPTH = 64;
const MAX_JSON_VALUES = 10_000;

let sb: TestSandbox;
let acct: AccountHandle;
beforeAll(async () => {
  sb = createTestSandbox();
  acct = await sb.account({ balance: 100 });
});
afterAll(() => sb.close());

const nested = (depth: number) => `{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
const DEPTH_MESSAGE = `request body nests deeper than ${MAX_JSON_DEPTH} levels`;
const VALUES_MESSAGE = `request body holds more than ${MAX_JSON_VALUES} values`;

describe('JSON bodies are bounded in depth and value count before they are parsed', () => {
  it.each([
    ['/v1/card/list', 'partner API'],
    ['/sandbox/v1/clock', 'simulation API'],
  ])('%s (%s) refuses 1 MB of nested arrays with a 400 naming the bound', async (path) => {
    const res = await sb.post(acct.apiKey, path, nested(500_000));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: DEPTH_MESSAGE });
  });

  it('refuses a body one level deeper than the bound, and accepts one at the bound', async () => {
    expect((await sb.post(acct.apiKey, '/v1/card/list', nested(MAX_JSON_DEPTH + 1))).body).toEqual({
      code: 400,
      message: DEPTH_MESSAGE,
    });
    const atBound = await sb.post(acct.apiKey, '/v1/card/list', nested(MAX_JSON_DEPTH));
    expect(atBound.status).toBe(200);
  });

  it('refuses a flat body of more values than the bound (parse cost, not depth)', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/list', `{"a":[${'[],'.repeat(200_000)}[]]}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: VALUES_MESSAGE });
  });

  it('does not count brackets and commas inside strings', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/list', { note: `[{,\\"${'[{,'.repeat(20_000)}` });
    expect(res.status).toBe(200);
  });

  it('the admin API is bounded the same way', async () => {
    const res = await sb.admin('post', '/admin/v1/accounts').set('Content-Type', 'application/json').send(nested(100));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: DEPTH_MESSAGE });
  });
});
