import { describe, expect } from 'vitest';
import { newCard } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

// docs/design.md section 5 (Card lifecycle).
let sb: TestSandbox;
let acct: AccountHandle;

it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const post = (path: string, body: Record<string, unknown>) => sb.post(acct.apiKey, path, body);

describe('card/sensitiveInfo', () => {
  it('is allowed in every state but CANCELLED: ACTIVE, FROZEN, CANCELLING', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    const active = await post('/v1/card/sensitiveInfo', { cardId });
    expect(active.status).toBe(200);
    await post('/v1/card/freeze', { cardId });
    expect((await post('/v1/card/sensitiveInfo', { cardId })).body).toEqual(active.body);
    await post('/v1/card/cancel', { cardId });
    expect((await post('/v1/card/detail', { cardId })).body.cardStatus).toBe('CANCELLING');
    expect((await post('/v1/card/sensitiveInfo', { cardId })).body).toEqual(active.body);
    await sb.advance(acct.apiKey, 5);
    expect((await post('/v1/card/sensitiveInfo', { cardId })).body).toEqual({
      code: 400,
      message: 'card is cancelled',
    });
  });
});

describe('card/list status filter', () => {
  it('accepts CANCELLING and CANCELLED as well as ACTIVE and FROZEN', async () => {
    const cardId = await newCard(sb, acct.apiKey, 10);
    await post('/v1/card/cancel', { cardId });
    const ids = async (status: string) =>
      (await post('/v1/card/list', { status })).body.cardList.map((c: { cardId: string }) => c.cardId);
    expect(await ids('CANCELLING')).toEqual([cardId]);
    await sb.advance(acct.apiKey, 5);
    expect(await ids('CANCELLING')).toEqual([]);
    expect(await ids('CANCELLED')).toEqual([cardId]);
  });
});
