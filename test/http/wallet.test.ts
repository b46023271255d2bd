import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let acct: AccountHandle;

it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('wallet/assetList', () => {
  it('lists the USDT balance as a decimal string and a zero USDC entry with null fields', async () => {
    const res = await sb.post(acct.apiKey, '/v1/wallet/assetList', {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 0,
      message: 'ok',
      assetList: [
        { currency: 'USDT', availableAmount: '100', frozenAmount: '0', assetType: 'CRYPTO', status: 'ACTIVE' },
        {
          currency: 'USDC',
          availableAmount: '0',
          frozenAmount: null,
          assetType: 'CRYPTO',
          status: null,
          active: false,
        },
      ],
    });
  });

  it('answers every response with an X-Request-Id', async () => {
    const res = await sb.post(acct.apiKey, '/v1/wallet/assetList', {});
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{20}$/);
  });
});

describe('wallet/getAddress', () => {
  it('fails with 2000 when no deposit address is configured', async () => {
    const res = await sb.post(acct.apiKey, '/v1/wallet/getAddress', { currency: 'USDT', network: 'TRX' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 2000, message: 'No deposit address configured for this account' });
  });

  it('returns a real TRON base58check address assigned at onboarding', async () => {
    const other = await sb.account({ depositAddress: 'auto' });
    const res = await sb.post(other.apiKey, '/v1/wallet/getAddress', { currency: 'USDT', network: 'TRX' });
    expect(res.status).toBe(200);
    expect(res.body.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    const { utils } = await import('tronweb');
    expect(utils.crypto.isAddressValid(res.body.address)).toBe(true);
    const again = await sb.post(other.apiKey, '/v1/wallet/getAddress', { currency: 'USDT', network: 'TRX' });
    expect(again.body.address).toBe(res.body.address);
  });

  it.each([
    [{ network: 'TRX' }, 'currency is required'],
    [{ currency: 'USDC', network: 'TRX' }, 'currency must be one of USDT'],
    [{ currency: 'USDT', network: 'ETH' }, 'network must be one of TRX'],
  ])('rejects %j with 400 naming the field', async (body, message) => {
    const res = await sb.post(acct.apiKey, '/v1/wallet/getAddress', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
  });
});
