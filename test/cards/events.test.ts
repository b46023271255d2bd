import { describe, expect } from 'vitest';
import { newCard, outbox } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { DEFAULT_BIN } from './bins.js';
import { START_MS, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox, acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('card.* events in the outbox', () => {
  it('card.created carries cardId, binId and status with an evt_ id and the account time in Unix seconds', async () => {
    await sb.advance(acct.apiKey, 3600);
    const cardId = await newCard(sb, acct.apiKey, 10);
    const [event] = await outbox(sb, acct.accountId);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Za-z]{24}$/),
      type: 'card.created',
      created: START_MS / 1000 + 3600,
      data: { cardId, binId: DEFAULT_BIN, status: 'ACTIVE' },
    });
  });

  it('a failed mutation writes no event', async () => {
    await sb.post(acct.apiKey, '/v1/card/create', { amount: 1000, currency: 'USDT' });
    expect(await outbox(sb, acct.accountId)).toEqual([]);
  });
});
