import { describe, expect } from 'vitest';
import { expectRefusedUnchanged, newCard, outbox, walletAvailable } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { DEFAULT_BIN } from './bins.js';
import { START_MS, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox, acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('card/cancel', () => {
  it('moves to CANCELLING at once, then CANCELLED after the cancel delay with the balance returned to the wallet and card.cancelled', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    const res = await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
    expect(res.body).toEqual({ code: 0, message: 'ok' });
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('CANCELLING');
    expect(await walletAvailable(sb, acct.apiKey)).toBe('50');
    await sb.advance(acct.apiKey, 4);
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('CANCELLING');
    expect((await outbox(sb, acct.accountId)).map((e) => e.type)).toEqual(['card.created']);
    await sb.advance(acct.apiKey, 1);
    const detail = await sb.post(acct.apiKey, '/v1/card/detail', { cardId });
    expect(detail.body.cardStatus).toBe('CANCELLED');
    expect(detail.body.availableBalance).toBe(0);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('99');
    const events = await outbox(sb, acct.accountId);
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['card.created', { cardId, binId: DEFAULT_BIN, status: 'ACTIVE' }],
      ['card.cancelled', { cardId }],
    ]);
    expect(events[1]!.created).toBe(START_MS / 1000 + 5);
  });

  it('completes on the wall clock too: a running account clock catches up on the next request', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
    sb.wall.ms += 5_000;
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('CANCELLED');
  });

  it.each(['deposit', 'freeze', 'unfreeze', 'cancel'])('fails with 4008 on card/%s while CANCELLING', async (path) => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
    const res = await expectRefusedUnchanged(sb, 400, () =>
      sb.post(acct.apiKey, `/v1/card/${path}`, { cardId, amount: 5 }),
    );
    expect(res.body).toEqual({ code: 4008, message: 'Card is being cancelled' });
  });

  it('keeps reads working while CANCELLING', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
    for (const path of ['detail', 'asset', 'sensitiveInfo']) {
      expect((await sb.post(acct.apiKey, `/v1/card/${path}`, { cardId })).status).toBe(200);
    }
    const list = await sb.post(acct.apiKey, '/v1/card/list', { status: 'CANCELLING' });
    expect(list.body.cardList).toHaveLength(1);
  });

  it.each(['deposit', 'freeze', 'unfreeze', 'cancel', 'sensitiveInfo'])(
    'a CANCELLED card answers card/%s with 400 "card is cancelled"',
    async (path) => {
      const cardId = await newCard(sb, acct.apiKey, 50);
      await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
      await sb.advance(acct.apiKey, 5);
      const res = await expectRefusedUnchanged(sb, 400, () =>
        sb.post(acct.apiKey, `/v1/card/${path}`, { cardId, amount: 5 }),
      );
      expect(res.body).toEqual({ code: 400, message: 'card is cancelled' });
    },
  );

  it('fails with 4007 while the card has a PENDING authorisation', async () => {
    const cardId = await newCard(sb, acct.apiKey, 50);
    await sb.deps.store.run(
      `INSERT INTO transactions (id, account_id, card_id, bin_id, kind, status, bill_amount_micros,
           transaction_amount_micros, transaction_currency, merchant_name, merchant_country, mcc_category,
           created_at_ms, acct_seq, card_seq, bin_seq)
         VALUES ('txn_pending', ?, ?, ?, 'SPEND', 'PENDING', 1000000, 1000000, 'USD', 'M', 'US', 'Retail', ?, 1, 1, 1)`,
      [acct.accountId, cardId, DEFAULT_BIN, START_MS],
    );
    const res = await sb.post(acct.apiKey, '/v1/card/cancel', { cardId });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(4007);
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('ACTIVE');
  });
});
