import { describe, expect } from 'vitest';
import { expectRefusedUnchanged, newCard } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox, acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('tenant isolation: another account card is 4001 on every card endpoint', () => {
  it.each(['detail', 'asset', 'sensitiveInfo', 'deposit', 'freeze', 'unfreeze', 'cancel'])('card/%s', async (path) => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    const other = await sb.account({ balance: 100 });
    const res = await expectRefusedUnchanged(sb, 400, () =>
      sb.post(other.apiKey, `/v1/card/${path}`, { cardId, amount: 5 }),
    );
    expect(res.body).toEqual({ code: 4001, message: 'Card not found' });
  });

  it('card/list and bill/list never show another account cards', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    const other = await sb.account();
    expect((await sb.post(other.apiKey, '/v1/card/list', {})).body.cardList).toEqual([]);
    const bills = await sb.post(other.apiKey, '/v1/bill/list', { cardId });
    expect(bills.body.code).toBe(4001);
  });
});
