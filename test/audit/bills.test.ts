import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

// Fidelity audit of bill/list filters against the spec's error catalogue (4004 BIN_NOT_FOUND: unknown card BIN),
// as strict for binId as the sandbox already is for cardId (4001).

let sb: TestSandbox;
let acct: AccountHandle;

it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const list = (body: Record<string, unknown>) => sb.post(acct.apiKey, '/v1/bill/list', body);

describe('bill/list binId (spec Errors: 4004 BIN_NOT_FOUND, unknown card BIN)', () => {
  it('fails with 4004 for a binId that names no BIN', async () => {
    const res = await list({ binId: 'NO-SUCH-BIN' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 4004, message: expect.any(String) });
  });

  it('a known BIN with no transactions is still an empty page, and a disabled BIN can still be read', async () => {
    expect((await list({ binId: 'VISA-EFI-454924' })).body).toMatchObject({
      code: 0,
      transactions: [],
      totalElements: 0,
    });
    await sb.admin('put', '/admin/v1/bins/OFF-BIN', { bin: '411111', enabled: false });
    expect((await list({ binId: 'OFF-BIN' })).body).toMatchObject({
      code: 0,
      transactions: [],
      totalPages: 0,
      last: true,
    });
  });

  it('binId is ignored when cardId is given (spec: binId is used when cardId is omitted)', async () => {
    const cardId = (await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' })).body.cardId;
    expect((await list({ cardId, binId: 'NO-SUCH-BIN' })).body.code).toBe(0);
  });
});
