import { createServer } from 'node:http';
import { describe, expect } from 'vitest';
import { accountOwnedTables } from '../../src/store/account-purge.js';
import { walletAvailable } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { START_MS, type AccountHandle, type TestSandbox, sqliteOf } from '../helpers/sandbox.js';
import { closeServer, listen } from '../helpers/loopback.js';
import { onPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

let sb: TestSandbox;
let parent: AccountHandle;

it.override({ accountOptions: { balance: 500 } });
it.beforeEach(({ sb: s, acct: a }) => void ([sb, parent] = [s, a]));

const sandboxes = (key: string, op: 'create' | 'list' | 'delete', body: unknown = {}) =>
  sb.post(key, `/sandbox/v1/sandboxes/${op}`, body);

async function child(body: Record<string, unknown> = {}) {
  const res = await sandboxes(parent.apiKey, 'create', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { accountId: string; apiKey: string; keyId: string; depositAddress: string; expiresAt: string };
}

describe('sandbox/v1/sandboxes/create', () => {
  it('a child created with deliveries: false delivers nothing: no webhook attempt, no redelivery, no readiness delivery', async () => {
    let received = 0;
    const receiver = createServer((req, res) => {
      received++;
      req.resume();
      res.end('ok');
    });
    const url = `${await listen(receiver)}/hook`;
    const withWebhook = async (deliveries: boolean) => {
      const c = await child({ balance: 50, deliveries });
      const put = await sb.request
        .put('/v1/webhook')
        .set('X-API-KEY', c.apiKey)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify({ url, enabled: true }));
      expect(put.status).toBe(200);
      expect((await sb.post(c.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' })).status).toBe(200);
      await sb.advance(c.apiKey, 60);
      return c;
    };
    try {
      // The receiver works: an ordinary child's event reaches it.
      await withWebhook(true);
      expect(received).toBeGreaterThan(0);
      received = 0;
      const quiet = await withWebhook(false);
      const events = (await sb.post(quiet.apiKey, '/sandbox/v1/events', {})).body.events as { id: string }[];
      expect(events.length).toBeGreaterThan(0);
      const redelivered = await sb.post(quiet.apiKey, '/sandbox/v1/webhook/redeliver', { eventId: events[0]!.id });
      expect(redelivered.body).toEqual({
        code: 400,
        message: 'this child sandbox delivers nothing (it was created with deliveries: false)',
      });
      const run = await sb.post(quiet.apiKey, '/sandbox/v1/readiness/run', { webhookUrl: url, windowSeconds: 1 });
      expect(run.status).toBe(200);
      expect(run.body.receiver).toBeNull();
      await sb.advance(quiet.apiKey, 86_400);
      expect(received).toBe(0);
    } finally {
      await closeServer(receiver);
    }
  });

  it('makes a child account with its own key, balance and deposit address, expiring after 24 h by default', async () => {
    const res = await sandboxes(parent.apiKey, 'create', { name: 'ci-run-1', balance: 25 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      code: 0,
      message: 'ok',
      accountId: expect.any(String),
      apiKey: expect.stringMatching(/^sk_sandbox_/),
      keyId: expect.any(String),
      depositAddress: expect.stringMatching(/^T[1-9A-HJ-NP-Za-km-z]{33}$/),
      expiresAt: new Date(START_MS + 86_400_000).toISOString(),
    });
    expect(res.body.accountId).not.toBe(parent.accountId);
    expect(await walletAvailable(sb, res.body.apiKey)).toBe('25');
    expect(await walletAvailable(sb, parent.apiKey)).toBe('500');
  });

  it('keeps the child apart from its parent: cards made in one are not seen by the other', async () => {
    const c = await child({ balance: 50 });
    const card = await sb.post(c.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    expect(card.status).toBe(200);
    expect((await sb.post(parent.apiKey, '/v1/card/list', {})).body.cardList).toEqual([]);
    expect((await sb.post(parent.apiKey, '/v1/card/detail', { cardId: card.body.cardId })).body.code).toBe(4001);
  });

  it('takes the parent deposit fee rate unless one is given', async () => {
    const rate = async (key: string) =>
      (await sb.post(key, '/v1/card/binList', {})).body.availableCardBinList[0].fee.deposit as string;
    const inherited = await child();
    const own = await child({ depositFeeRate: '0.05' });
    expect(await rate(inherited.apiKey)).toBe(await rate(parent.apiKey));
    expect(await rate(own.apiKey)).toBe('0.05');
  });

  it.each([
    [{ ttlSeconds: 604_801 }, 'ttlSeconds'],
    [{ ttlSeconds: 0 }, 'ttlSeconds'],
    [{ balance: -1 }, 'balance'],
    [{ depositFeeRate: '1.5' }, 'depositFeeRate'],
    [{ ttl: 60 }, 'ttl'],
  ])('refuses %j with a 400 naming the field, creating nothing', async (body, field) => {
    const res = await sandboxes(parent.apiKey, 'create', body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toContain(field);
    expect((await sandboxes(parent.apiKey, 'list')).body.sandboxes).toEqual([]);
  });

  it('accepts a ttl of up to 7 days', async () => {
    const c = await child({ ttlSeconds: 604_800 });
    expect(c.expiresAt).toBe(new Date(START_MS + 604_800_000).toISOString());
  });

  it('refuses a child creating children (400): there are no grandchildren', async () => {
    const c = await child();
    const res = await sandboxes(c.apiKey, 'create', {});
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/child sandbox cannot create/);
  });

  it('refuses a 101st live child (400); deleting one makes room again', async () => {
    const made: string[] = [];
    for (let i = 0; i < 100; i++) made.push((await child()).accountId);
    const over = await sandboxes(parent.apiKey, 'create', {});
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/100 live sandboxes/);
    expect((await sandboxes(parent.apiKey, 'delete', { accountId: made[0] })).status).toBe(200);
    expect((await sandboxes(parent.apiKey, 'create', {})).status).toBe(200);
  }, 60_000);
});

describe('sandbox/v1/sandboxes/list', () => {
  it("lists the caller's live children only, oldest first", async () => {
    const a = await child({ name: 'a' });
    sb.wall.ms += 1000;
    const b = await child({ name: 'b', ttlSeconds: 3600 });
    const other = await sb.account();
    await sandboxes(other.apiKey, 'create', { name: 'not yours' });
    const res = await sandboxes(parent.apiKey, 'list');
    expect(res.body).toEqual({
      code: 0,
      message: 'ok',
      sandboxes: [
        {
          accountId: a.accountId,
          name: 'a',
          createdAt: new Date(START_MS).toISOString(),
          expiresAt: new Date(START_MS + 86_400_000).toISOString(),
        },
        {
          accountId: b.accountId,
          name: 'b',
          createdAt: new Date(START_MS + 1000).toISOString(),
          expiresAt: new Date(START_MS + 1000 + 3_600_000).toISOString(),
        },
      ],
    });
  });

  it('refuses an unknown field with a 400 naming it', async () => {
    const res = await sandboxes(parent.apiKey, 'list', { limit: 5 });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^limit: unknown field/);
  });
});

describe('sandbox/v1/sandboxes/delete', () => {
  it('deletes the child: its keys stop working at once and it leaves the list', async () => {
    const c = await child({ balance: 5 });
    expect(await walletAvailable(sb, c.apiKey)).toBe('5');
    const res = await sandboxes(parent.apiKey, 'delete', { accountId: c.accountId });
    expect(res.body).toEqual({ code: 0, message: 'ok' });
    const after = await sb.post(c.apiKey, '/v1/wallet/assetList', {});
    expect(after.status).toBe(401);
    expect(after.body.code).toBe(11002);
    expect((await sandboxes(parent.apiKey, 'list')).body.sandboxes).toEqual([]);
  });

  it("answers the same 404 for an unknown id, another account's child, a non-child and the caller itself", async () => {
    const other = await sb.account();
    const othersChild = (await sandboxes(other.apiKey, 'create', {})).body.accountId as string;
    const answers = [];
    for (const accountId of ['acct_unknown', othersChild, other.accountId, parent.accountId]) {
      const res = await sandboxes(parent.apiKey, 'delete', { accountId });
      answers.push([res.status, res.body]);
    }
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
    expect(answers[0]).toEqual([404, { code: 404, message: 'no such sandbox' }]);
    expect(await walletAvailable(sb, other.apiKey)).toBe('0');
    expect((await sandboxes(other.apiKey, 'list')).body.sandboxes).toHaveLength(1);
  });

  it('refuses a missing accountId and unknown fields (400)', async () => {
    expect((await sandboxes(parent.apiKey, 'delete', {})).body.message).toMatch(/accountId is required/);
    const res = await sandboxes(parent.apiKey, 'delete', { accountId: 'x', force: true });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^force: unknown field/);
  });

  it('removes every row the child owned, in every table of the schema', async () => {
    const c = await child({ balance: 200 });
    const k = c.apiKey;
    const put = await sb.request
      .put('/v1/webhook')
      .set('X-API-KEY', k)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ url: 'http://127.0.0.1:9/hook' }));
    expect(put.status).toBe(200);
    const card = await sb.post(k, '/v1/card/create', { amount: 50, currency: 'USDT' }, { 'Idempotency-Key': 'k1' });
    const cardId = card.body.cardId as string;
    await sb.post(k, '/v1/card/deposit', { cardId, amount: 10, currency: 'USDT' });
    const auth = await sb.post(k, '/sandbox/v1/card/authorize', { cardId, amount: 5 });
    await sb.post(k, '/sandbox/v1/transaction/clear', { transactionId: auth.body.transactionId });
    await sb.post(k, '/sandbox/v1/transaction/refund', { transactionId: auth.body.transactionId, amount: 1 });
    await sb.post(k, '/sandbox/v1/chain/transfer', { amount: 3 });
    await sb.post(k, '/sandbox/v1/card/3ds', { cardId, type: 'payment' });
    await sb.post(k, '/sandbox/v1/inventory', { binId: 'VISA-EFI-454924', available: 5 });
    const fault = { path: '/v1/card/list', respond: { httpStatus: 503, code: 9999 } };
    expect((await sb.post(k, '/sandbox/v1/faults', { rules: [fault] })).status).toBe(200);
    await sb.advance(k, 5);
    const db = sb.deps.store;
    const owned = async (id: string) => {
      const counts: [string, number][] = [];
      for (const t of await accountOwnedTables(sb.deps.db))
        counts.push([t, (await db.value<number>(`SELECT COUNT(*) FROM ${t} WHERE account_id = ?`, [id]))!]);
      return Object.fromEntries(counts);
    };
    const before = await owned(c.accountId);
    for (const t of ['cards', 'transactions', 'transfers', 'events', 'webhook_configs', 'chain_deposits', 'faults'])
      expect(before[t], t).toBeGreaterThan(0);
    const scopes = async () =>
      (await db.column<string>('SELECT scope FROM seq_counters')).filter(
        (s) => s.includes(c.accountId) || s.includes(cardId),
      );
    expect((await scopes()).length).toBeGreaterThan(0);

    expect((await sandboxes(parent.apiKey, 'delete', { accountId: c.accountId })).status).toBe(200);
    expect(
      Object.values(await owned(c.accountId)).every((n) => n === 0),
      JSON.stringify(await owned(c.accountId)),
    ).toBe(true);
    expect(await db.value('SELECT COUNT(*) FROM accounts WHERE id = ?', [c.accountId])).toBe(0);
    expect(await scopes()).toEqual([]);
    // SQLite's check of every foreign key. PostgreSQL checks each one at every write (a purge there keeps them on,
    // store/seam.ts), so no row can be left violating one.
    if (!onPostgres) expect(sqliteOf(sb.deps).pragma('foreign_key_check')).toEqual([]);
    // The parent is untouched.
    expect(await walletAvailable(sb, parent.apiKey)).toBe('500');
  });
});

describe('child sandbox expiry (wall time)', () => {
  it('deletes an expired child when its key is next used, and leaves it off the list', async () => {
    const c = await child({ ttlSeconds: 60 });
    sb.wall.ms += 59_000;
    expect((await sb.post(c.apiKey, '/v1/wallet/assetList', {})).status).toBe(200);
    sb.wall.ms += 1_000;
    expect((await sb.post(c.apiKey, '/v1/wallet/assetList', {})).status).toBe(401);
    expect((await sandboxes(parent.apiKey, 'list')).body.sandboxes).toEqual([]);
    // Its rows go after the 401, in slices.
    const rows = () => sb.deps.store.value('SELECT COUNT(*) FROM accounts WHERE id = ?', [c.accountId]);
    await waitFor('the expired child purged', async () => (await rows()) === 0);
  });

  it('is not extended by advancing the child account clock (expiry is wall time)', async () => {
    const c = await child({ ttlSeconds: 3600 });
    await sb.advance(c.apiKey, 7200);
    expect((await sb.post(c.apiKey, '/v1/wallet/assetList', {})).status).toBe(200);
  });

  it('lists only live children and frees their places', async () => {
    await child({ ttlSeconds: 60 });
    const live = await child({ ttlSeconds: 3600 });
    sb.wall.ms += 61_000;
    const list = (await sandboxes(parent.apiKey, 'list')).body.sandboxes;
    expect(list.map((s: { accountId: string }) => s.accountId)).toEqual([live.accountId]);
  });

  it('the background sweep deletes expired children nobody touches', async () => {
    const { endExpiredSandboxes } = await import('../../src/domain/accounts/child-sandboxes.js');
    const c = await child({ ttlSeconds: 60 });
    sb.wall.ms += 60_000;
    expect(await sb.deps.transactions.run((deps) => endExpiredSandboxes(deps))).toBe(1);
    // Ended at once (its key no longer works); its rows go after, in slices.
    expect((await sb.post(c.apiKey, '/v1/wallet/assetList', {})).status).toBe(401);
    const rows = () => sb.deps.store.value('SELECT COUNT(*) FROM accounts WHERE id = ?', [c.accountId]);
    await waitFor('the expired child purged', async () => (await rows()) === 0);
  });
});
