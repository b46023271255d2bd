import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';
import { onPostgres } from '../helpers/postgres.js';

// docs/design.md section 10 (the simulation API): its place apart from the partner API.
let sb: TestSandbox;
let acct: AccountHandle;

it.override({ accountOptions: { balance: 10 } });
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('the simulation API', () => {
  it.each(['wallet/seed', 'clock', 'reset', 'card/authorize', 'faults'])(
    'is never mounted under /v1: /v1/%s is 404',
    async (path) => {
      const res = await sb.post(acct.apiKey, `/v1/${path}`, { amount: 5 });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe(404);
    },
  );

  it('acts only on the calling account: another account balance is untouched by its seed', async () => {
    const other = await sb.account({ balance: 10 });
    await sb.post(acct.apiKey, '/sandbox/v1/wallet/seed', { amount: 5 });
    const mine = await sb.post(acct.apiKey, '/v1/wallet/assetList', {});
    const theirs = await sb.post(other.apiKey, '/v1/wallet/assetList', {});
    expect(mine.body.assetList[0].availableAmount).toBe('15');
    expect(theirs.body.assetList[0].availableAmount).toBe('10');
  });

  it('the default BIN starts with an inventory of 10,000 cards', async () => {
    const res = await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: 'VISA-EFI-454924' });
    expect(res.body).toEqual({
      code: 0,
      message: 'ok',
      binId: 'VISA-EFI-454924',
      available: 10_000,
      provisioning: false,
    });
  });

  it('GET /healthz answers {status: "ok", store, instance} without authentication', async () => {
    const res = await sb.request.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      store: onPostgres ? 'postgres' : 'sqlite',
      instance: expect.stringMatching(/^inst_[0-9A-Za-z]{12}$/),
    });
    // The same process answers with the same id every time; another sandbox (another process's state) has its own.
    expect((await sb.request.get('/healthz')).body.instance).toBe(res.body.instance);
    const other = createTestSandbox();
    try {
      expect((await other.request.get('/healthz')).body.instance).not.toBe(res.body.instance);
    } finally {
      await other.close();
    }
  });
});
