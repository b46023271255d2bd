import { describe, expect } from 'vitest';
import { cardAvailable, expectRefusedUnchanged, newCard, walletAvailable } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox, acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('card/deposit settlement on the account clock', () => {
  it('debits the wallet at once and credits the card net of the fee topUpSettleSeconds later', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    const res = await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 20, currency: 'USDT' });
    expect(res.body).toEqual({ code: 0, message: 'ok' });
    expect(await walletAvailable(sb, acct.apiKey)).toBe('70');
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('9.8');
    await sb.advance(acct.apiKey, 2);
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('9.8');
    await sb.advance(acct.apiKey, 1);
    expect(await cardAvailable(sb, acct.apiKey, cardId)).toBe('29.4');
  });

  it.each(['deposit', 'freeze', 'unfreeze', 'cancel'])(
    'fails with 4007 on card/%s while a top-up is settling',
    async (path) => {
      const cardId = await newCard(sb, acct.apiKey, 10);
      await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 20 });
      const res = await expectRefusedUnchanged(sb, 400, () =>
        sb.post(acct.apiKey, `/v1/card/${path}`, { cardId, amount: 5 }),
      );
      expect(res.body).toEqual({ code: 4007, message: 'A conflicting operation is pending on this card' });
      await sb.advance(acct.apiKey, 3);
      expect((await sb.post(acct.apiKey, `/v1/card/${path}`, { cardId, amount: 5 })).status).toBe(200);
    },
  );

  it('fails with 4001 for an unknown card', async () => {
    const res = await sb.post(acct.apiKey, '/v1/card/deposit', { cardId: '2026060100000000000000', amount: 5 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 4001, message: 'Card not found' });
  });
});
