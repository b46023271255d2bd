import { describe, expect } from 'vitest';
import { cardAvailable, newCard, walletAvailable } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { putBin } from './bins.js';
import { type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox, acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('card/create fees: card_credit = amount - amount * deposit_fee_rate - open_fee', () => {
  it('at the default 2 percent and zero open fee, amount 50 credits the card 49 and debits the wallet 50', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/create', { amount: 50, currency: 'USDT' });
    expect(res.status).toBe(200);
    expect(await cardAvailable(sb, acct.apiKey, res.body.cardId)).toBe('49');
    expect(await walletAvailable(sb, acct.apiKey)).toBe('50');
  });

  it('at a negotiated 0 percent, amount 50 credits the card 50', async () => {
    const zero = await sb.account({ balance: 100, depositFeeRate: '0' });
    const cardId = await newCard(sb, zero.apiKey, 50);
    expect(await cardAvailable(sb, zero.apiKey, cardId)).toBe('50');
    expect(await walletAvailable(sb, zero.apiKey)).toBe('50');
  });

  it('takes the BIN open fee on card/create and reports it as openFee', async () => {
    await putBin(sb, 'FEE-BIN', { bin: '411111', fee: { card: '1.5' } });
    const res = await sb.post(acct.apiKey, '/v1/card/create', { amount: 50, currency: 'USDT', binId: 'FEE-BIN' });
    expect(res.status).toBe(200);
    expect(res.body.openFee).toBe(1.5);
    expect(await cardAvailable(sb, acct.apiKey, res.body.cardId)).toBe('47.5');
    expect(await walletAvailable(sb, acct.apiKey)).toBe('50');
  });

  it('never takes the open fee on card/deposit', async () => {
    await putBin(sb, 'FEE-BIN', { bin: '411111', fee: { card: '1.5' } });
    const cardId = await newCard(sb, acct.apiKey, 10, { binId: 'FEE-BIN' });
    expect((await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 20 })).status).toBe(200);
    await sb.advance(acct.apiKey, 3);
    // 10 - 0.2 - 1.5 = 8.3, then 20 - 0.4 = 19.6
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('27.9');
  });

  it('floors the card credit to the cent; the remainder is the fee', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10.01);
    // 10.01 - 0.2002 = 9.8098 -> 9.80
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('9.8');
    expect(await walletAvailable(sb, acct.apiKey)).toBe('89.99');
  });

  it('shows the calling account rate as fee.deposit in binList', async () => {
    const other = await sb.account({ depositFeeRate: '0.015' });
    const res = await sb.post(other.apiKey, '/v1/card/binList', {});
    expect(res.body.availableCardBinList[0].fee.deposit).toBe('0.015');
  });
});
