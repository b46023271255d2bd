import { describe, expect } from 'vitest';
import { walletAvailable } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let acct: AccountHandle;

it.override({ accountOptions: {} });
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const seed = (amount: unknown) => sb.post(acct.apiKey, '/sandbox/v1/wallet/seed', { amount });

describe('sandbox/v1/wallet/seed', () => {
  it('credits the USDT balance at once and answers the new balance', async () => {
    const res = await seed(12.5);
    expect(res.body).toEqual({ code: 0, message: 'ok', availableAmount: '12.5' });
    expect(await walletAvailable(sb, acct.apiKey)).toBe('12.5');
  });

  it.each([[0], [-1], ['5'], [1e-7], [1_000_000_001]])('rejects amount %j with 400', async (amount) => {
    const res = await seed(amount);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('0');
  });

  it('refuses, with a 400, seeding past 5,000,000,000 USDT in total, so balances stay exact (never a 500)', async () => {
    for (let i = 0; i < 5; i++) expect((await seed(1e9)).status).toBe(200);
    const res = await seed(0.000001);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/sandbox limit/);
    expect(await walletAvailable(sb, acct.apiKey)).toBe('5000000000');
    const reset = await sb.post(acct.apiKey, '/sandbox/v1/reset', {});
    expect(reset.status).toBe(200);
    expect((await seed(1)).status).toBe(200);
  });
});

describe('sandbox/v1/reset', () => {
  it('wipes cards, money, events and keys in flight, keeps API keys, and seeds the given balance', async () => {
    await seed(100);
    await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' }, { 'Idempotency-Key': 'r1' });
    const res = await sb.post(acct.apiKey, '/sandbox/v1/reset', { balance: 7 });
    expect(res.body).toEqual({ code: 0, message: 'ok' });
    expect(await walletAvailable(sb, acct.apiKey)).toBe('7');
    expect((await sb.post(acct.apiKey, '/v1/card/list', {})).body.cardList).toEqual([]);
    const count = (t: string) =>
      sb.deps.store.value(`SELECT COUNT(*) FROM ${t} WHERE account_id = ?`, [acct.accountId]);
    expect([await count('events'), await count('idempotency_keys'), await count('jobs')]).toEqual([0, 0, 0]);
    // The key is new again after a reset.
    const again = await sb.post(
      acct.apiKey,
      '/v1/card/create',
      { amount: 5, currency: 'USDT' },
      { 'Idempotency-Key': 'r1' },
    );
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await walletAvailable(sb, acct.apiKey)).toBe('2');
  });

  it('leaves other accounts untouched', async () => {
    const other = await sb.account({ balance: 50 });
    await sb.post(other.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    await sb.post(acct.apiKey, '/sandbox/v1/reset', {});
    expect(await walletAvailable(sb, other.apiKey)).toBe('40');
    expect((await sb.post(other.apiKey, '/v1/card/list', {})).body.cardList).toHaveLength(1);
  });
});

describe('sandbox/v1/clock', () => {
  it('advances the account clock, runs due jobs before answering, and switches modes without a jump', async () => {
    const frozen = await sb.post(acct.apiKey, '/sandbox/v1/clock', { mode: 'frozen' });
    expect(frozen.body).toMatchObject({ code: 0, now: '2026-06-01T00:00:00.000Z', mode: 'frozen' });
    sb.wall.ms += 60_000;
    const still = await sb.post(acct.apiKey, '/sandbox/v1/clock', {});
    expect(still.body.now).toBe('2026-06-01T00:00:00.000Z');
    const moved = await sb.post(acct.apiKey, '/sandbox/v1/clock', { advanceSeconds: 90 });
    expect(moved.body.now).toBe('2026-06-01T00:01:30.000Z');
    const running = await sb.post(acct.apiKey, '/sandbox/v1/clock', { mode: 'running' });
    expect(running.body).toMatchObject({ now: '2026-06-01T00:01:30.000Z', mode: 'running' });
    sb.wall.ms += 1000;
    expect((await sb.post(acct.apiKey, '/sandbox/v1/clock', {})).body.now).toBe('2026-06-01T00:01:31.000Z');
  });

  it.each([[-1], ['5'], [1e12]])('rejects advanceSeconds %j with 400', async (advanceSeconds) => {
    const res = await sb.post(acct.apiKey, '/sandbox/v1/clock', { advanceSeconds });
    expect(res.status).toBe(400);
  });

  it('each account has its own clock', async () => {
    const other = await sb.account();
    await sb.advance(acct.apiKey, 3600);
    expect((await sb.post(other.apiKey, '/sandbox/v1/clock', {})).body.now).toBe('2026-06-01T00:00:00.000Z');
  });
});

describe('sandbox/v1/inventory', () => {
  it('answers the account view and rejects an unknown BIN with 4004', async () => {
    const res = await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: 'VISA-EFI-454924', available: 3 });
    expect(res.body).toEqual({ code: 0, message: 'ok', binId: 'VISA-EFI-454924', available: 3, provisioning: false });
    expect((await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: 'NOPE' })).body.code).toBe(4004);
  });

  it('counts down as cards are issued', async () => {
    await seed(100);
    await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: 'VISA-EFI-454924', available: 2 });
    await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    const res = await sb.post(acct.apiKey, '/sandbox/v1/inventory', { binId: 'VISA-EFI-454924' });
    expect(res.body.available).toBe(1);
  });
});
