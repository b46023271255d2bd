import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let acct: AccountHandle;

it.override({ accountOptions: { balance: 1000, depositFeeRate: '0' } });
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('card/list', () => {
  it('shows each card with the balances card/asset shows, newest first, and filters by status', async () => {
    const ids: string[] = [];
    for (const amount of [10, 20, 30]) {
      ids.push((await sb.post(acct.apiKey, '/v1/card/create', { amount, currency: 'USDT' })).body.cardId);
    }
    await sb.post(acct.apiKey, '/v1/card/deposit', { cardId: ids[0], amount: 5 }).expect(200);
    await sb.advance(acct.apiKey, 3);
    await sb.post(acct.apiKey, '/v1/card/freeze', { cardId: ids[1] }).expect(200);

    const list = await sb.post(acct.apiKey, '/v1/card/list', {});
    expect(list.body.cardList.map((c: { cardId: string }) => c.cardId)).toEqual([...ids].reverse());
    for (const item of list.body.cardList) {
      const asset = await sb.post(acct.apiKey, '/v1/card/asset', { cardId: item.cardId });
      expect(item.availableBalance).toBe(Number(asset.body.availableAmount));
      expect(item.frozenAmount).toBe(Number(asset.body.frozenAmount));
    }
    expect(list.body.cardList.map((c: { availableBalance: number }) => c.availableBalance)).toEqual([30, 20, 15]);

    const frozen = await sb.post(acct.apiKey, '/v1/card/list', { status: 'FROZEN' });
    expect(frozen.body.cardList).toEqual([
      expect.objectContaining({ cardId: ids[1], cardStatus: 'FROZEN', availableBalance: 20 }),
    ]);
  });
});
