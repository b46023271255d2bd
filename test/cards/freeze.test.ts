import { describe, expect } from 'vitest';
import { newCard, outbox } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { DEFAULT_BIN } from './bins.js';
import { type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox, acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('card/freeze and card/unfreeze', () => {
  it('ACTIVE -> FROZEN -> ACTIVE with card.frozen and card.unfrozen events, answering {code: 0, message: "ok"}', async () => {
    const cardId = await newCard(sb, acct.apiKey);
    const f = await sb.post(acct.apiKey, '/v1/card/freeze', { cardId });
    expect(f.body).toEqual({ code: 0, message: 'ok' });
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('FROZEN');
    const u = await sb.post(acct.apiKey, '/v1/card/unfreeze', { cardId });
    expect(u.body).toEqual({ code: 0, message: 'ok' });
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('ACTIVE');
    expect((await outbox(sb, acct.accountId)).map((e) => [e.type, e.data])).toEqual([
      ['card.created', { cardId, binId: DEFAULT_BIN, status: 'ACTIVE' }],
      ['card.frozen', { cardId }],
      ['card.unfrozen', { cardId }],
    ]);
  });

  it('freezing a FROZEN card or unfreezing an ACTIVE card succeeds without change or event', async () => {
    const cardId = await newCard(sb, acct.apiKey);
    expect((await sb.post(acct.apiKey, '/v1/card/unfreeze', { cardId })).body).toEqual({ code: 0, message: 'ok' });
    await sb.post(acct.apiKey, '/v1/card/freeze', { cardId });
    expect((await sb.post(acct.apiKey, '/v1/card/freeze', { cardId })).body).toEqual({ code: 0, message: 'ok' });
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('FROZEN');
    expect((await outbox(sb, acct.accountId)).map((e) => e.type)).toEqual(['card.created', 'card.frozen']);
  });

  it('a FROZEN card can be topped up and cancelled', async () => {
    const cardId = await newCard(sb, acct.apiKey);
    await sb.post(acct.apiKey, '/v1/card/freeze', { cardId });
    expect((await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 5 })).status).toBe(200);
    await sb.advance(acct.apiKey, 3);
    expect((await sb.post(acct.apiKey, '/v1/card/cancel', { cardId })).status).toBe(200);
  });
});
