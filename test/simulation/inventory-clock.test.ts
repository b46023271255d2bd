import { describe, expect } from 'vitest';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { eventsOf, fundedAccount, newCard, sim, walletAvailable } from '../helpers/core.js';
import { authorize } from '../helpers/card-network.js';

let sb: TestSandbox;
let acct: AccountHandle;
let key: string;

it.beforeEach(async ({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  key = acct.apiKey;
});

const create = () => sb.post(key, '/v1/card/create', { amount: 10, currency: 'USDT' });

describe('inventory', () => {
  it('at zero, card/create fails with 4009, moves no funds and creates nothing', async () => {
    const res = await sim(sb, key, 'inventory', { binId: 'VISA-EFI-454924', available: 0 });
    expect(res.body).toMatchObject({ code: 0, available: 0, provisioning: false });
    const created = await create();
    expect(created.status).toBe(400);
    expect(created.body.code).toBe(4009);
    expect(await walletAvailable(sb, key)).toBe('1000');
    expect((await sb.post(key, '/v1/card/list', {})).body.cardList).toEqual([]);
  });

  it('while provisioning, card/create fails with 4010 and moves no funds; afterwards it works', async () => {
    await sim(sb, key, 'inventory', { binId: 'VISA-EFI-454924', provisioning: true });
    const created = await create();
    expect(created.body.code).toBe(4010);
    expect(await walletAvailable(sb, key)).toBe('1000');
    await sim(sb, key, 'inventory', { binId: 'VISA-EFI-454924', provisioning: false });
    expect((await create()).status).toBe(200);
  });

  it("is this account's view only: another account still issues cards", async () => {
    await sim(sb, key, 'inventory', { binId: 'VISA-EFI-454924', available: 0 });
    const other = await fundedAccount(sb);
    expect((await sb.post(other.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' })).status).toBe(200);
  });

  it('counts down with each card issued', async () => {
    await sim(sb, key, 'inventory', { binId: 'VISA-EFI-454924', available: 1 });
    expect((await create()).status).toBe(200);
    expect((await create()).body.code).toBe(4009);
  });

  it('answers 4004 for an unknown BIN', async () => {
    expect((await sim(sb, key, 'inventory', { binId: 'NOPE', available: 0 })).body.code).toBe(4004);
  });
});

describe('clock', () => {
  it('runs every due job in time order before answering: settlement, cancellation, confirmation, auto-reversal', async () => {
    const chainAcct = await sb.account({ balance: 1000, depositFeeRate: '0', depositAddress: 'auto' });
    key = chainAcct.apiKey;
    const spender = await newCard(sb, key, 50);
    const toppedUp = await newCard(sb, key, 50);
    const cancelled = await newCard(sb, key, 50);
    // Scheduled in the reverse of their due order.
    await authorize(sb, key, spender, { amount: 10 }); // 7 days
    await sim(sb, key, 'chain/transfer', { amount: 20 }); // 57 s
    await sb.post(key, '/v1/card/cancel', { cardId: cancelled }); // 5 s
    await sb.post(key, '/v1/card/deposit', { cardId: toppedUp, amount: 10 }); // 3 s

    const res = await sim(sb, key, 'clock', { advanceSeconds: 8 * 24 * 3600 });
    expect(res.body).toMatchObject({ code: 0, now: '2026-06-09T00:00:00.000Z' });
    const moves = await sb.deps.store.all<{ reason: string; created_at_ms: number }>(
      "SELECT reason, created_at_ms FROM transfers WHERE account_id = ? AND reason IN ('topup.settle', 'card.cancel.refund', 'chain.deposit', 'reverse') ORDER BY id",
      [chainAcct.accountId],
    );
    const start = Date.UTC(2026, 5, 1);
    expect(moves.map((m) => [m.reason, (m.created_at_ms - start) / 1000])).toEqual([
      ['topup.settle', 3],
      ['card.cancel.refund', 5],
      ['chain.deposit', 57],
      ['reverse', 7 * 24 * 3600],
    ]);
    const events = (await eventsOf(sb, chainAcct.accountId)).filter(
      (e) => e.type === 'card.cancelled' || e.type === 'transaction.updated',
    );
    expect(events.map((e) => e.type)).toEqual(['card.cancelled', 'transaction.updated']);
    // 1000 - 3 cards of 50 - a top-up of 10 + the cancelled card's 50 + the confirmed deposit of 20.
    expect(await walletAvailable(sb, key)).toBe('910');
  });
});
