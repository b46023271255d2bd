import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { sim } from '../helpers/core.js';

let sb: TestSandbox;
let acct: AccountHandle;

it.override({ accountOptions: { depositAddress: 'auto' } });
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const wallet = async (key = acct.apiKey) => (await sb.post(key, '/v1/wallet/assetList', {})).body.assetList[0];

describe('chain/transfer', () => {
  it("sends a TRC20 transfer with a 64-hex tx hash to the account's real TRON deposit address", async () => {
    const res = await sim(sb, acct.apiKey, 'chain/transfer', { amount: 250.5 });
    expect(res.status).toBe(200);
    const { address } = (await sb.post(acct.apiKey, '/v1/wallet/getAddress', { currency: 'USDT', network: 'TRX' }))
      .body;
    expect(res.body).toMatchObject({
      code: 0,
      address,
      amount: '250.5',
      confirmations: 0,
      status: 'PENDING',
      network: 'TRX',
    });
    expect(res.body.txId).toMatch(/^[0-9a-f]{64}$/);
    const { utils } = await import('tronweb');
    expect(utils.crypto.isAddressValid(res.body.fromAddress)).toBe(true);
  });

  it('shows in the wallet frozenAmount until 19 confirmations (3 s per block), then credits availableAmount', async () => {
    await sim(sb, acct.apiKey, 'chain/transfer', { amount: 100 });
    expect(await wallet()).toMatchObject({ availableAmount: '0', frozenAmount: '100' });
    await sb.advance(acct.apiKey, 19 * 3 - 1);
    expect(await wallet()).toMatchObject({ availableAmount: '0', frozenAmount: '100' });
    expect((await sim(sb, acct.apiKey, 'chain/deposits')).body.deposits[0]).toMatchObject({
      confirmations: 18,
      status: 'PENDING',
    });
    await sb.advance(acct.apiKey, 1);
    expect(await wallet()).toMatchObject({ availableAmount: '100', frozenAmount: '0' });
    expect((await sim(sb, acct.apiKey, 'chain/deposits')).body.deposits[0]).toMatchObject({
      confirmations: 19,
      status: 'CONFIRMED',
      confirmedAt: '2026-06-01T00:00:57.000Z',
    });
  });

  it('credits after (19 - confirmations) * 3 s when the transfer starts with confirmations, at once from 19', async () => {
    await sim(sb, acct.apiKey, 'chain/transfer', { amount: 10, confirmations: 17 });
    await sim(sb, acct.apiKey, 'chain/transfer', { amount: 5, confirmations: 19 });
    expect(await wallet()).toMatchObject({ availableAmount: '5', frozenAmount: '10' });
    await sb.advance(acct.apiKey, 6);
    expect(await wallet()).toMatchObject({ availableAmount: '15', frozenAmount: '0' });
  });

  it('credits by itself while the account clock runs, seen on the next request', async () => {
    await sim(sb, acct.apiKey, 'chain/transfer', { amount: 7, txId: 'ab'.repeat(32) });
    sb.wall.ms += 57_000;
    expect(await wallet()).toMatchObject({ availableAmount: '7', frozenAmount: '0' });
  });

  it('is 400 with code 2000 for an account without a deposit address', async () => {
    const none = await sb.account({ depositAddress: null });
    const res = await sim(sb, none.apiKey, 'chain/transfer', { amount: 1 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(2000);
  });

  it.each([
    [{ amount: 0 }, 'amount must be'],
    [{ amount: -5 }, 'amount must be'],
    [{ amount: 1, txId: 'xyz' }, 'txId must be 64 hexadecimal characters'],
    [{ amount: 1, fromAddress: 'T123' }, 'fromAddress must be a TRON base58check address'],
    [{ amount: 1, confirmations: -1 }, 'confirmations must be an integer'],
  ])('rejects %j with 400', async (body, message) => {
    const res = await sim(sb, acct.apiKey, 'chain/transfer', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toContain(message);
  });

  it('refuses a tx hash already seen on chain', async () => {
    const txId = 'cd'.repeat(32);
    await sim(sb, acct.apiKey, 'chain/transfer', { amount: 1, txId });
    expect((await sim(sb, acct.apiKey, 'chain/transfer', { amount: 1, txId })).body).toEqual({
      code: 400,
      message: 'txId is already on chain',
    });
  });
});

describe('chain/deposits', () => {
  it("lists transfers newest first with confirmations and status, only the calling account's", async () => {
    await sim(sb, acct.apiKey, 'chain/transfer', { amount: 1 });
    await sb.advance(acct.apiKey, 9);
    await sim(sb, acct.apiKey, 'chain/transfer', { amount: 2 });
    const other = await sb.account({ depositAddress: 'auto' });
    await sim(sb, other.apiKey, 'chain/transfer', { amount: 3 });
    const { deposits } = (await sim(sb, acct.apiKey, 'chain/deposits')).body;
    expect(deposits.map((d: { amount: string; confirmations: number }) => [d.amount, d.confirmations])).toEqual([
      ['2', 0],
      ['1', 3],
    ]);
  });

  it('is emptied by reset', async () => {
    await sim(sb, acct.apiKey, 'chain/transfer', { amount: 1 });
    await sim(sb, acct.apiKey, 'reset');
    expect((await sim(sb, acct.apiKey, 'chain/deposits')).body.deposits).toEqual([]);
    expect(await wallet()).toMatchObject({ frozenAmount: '0' });
  });
});
