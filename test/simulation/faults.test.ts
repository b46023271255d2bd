import { describe, expect } from 'vitest';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { cardAsset, fundedAccount, holdNext, newCard, sim, walletAvailable } from '../helpers/core.js';
import { waitFor } from '../helpers/wait.js';
import { createApp } from '../../src/app.js';

let sb: TestSandbox;
let acct: AccountHandle;
let key: string;

it.beforeEach(async ({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  key = acct.apiKey;
});

const faults = (rules: unknown[]) => sim(sb, key, 'faults', { rules });

describe('faults', () => {
  it('respond answers the injected error without executing, for count requests, then the call works again', async () => {
    await faults([{ path: '/v1/card/create', count: 2, respond: { httpStatus: 500, code: 9999 } }]);
    for (let i = 0; i < 2; i++) {
      const res = await sb.post(key, '/v1/card/create', { amount: 10, currency: 'USDT' });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ code: 9999, message: 'Unexpected server error, retry later' });
    }
    expect(await walletAvailable(sb, key)).toBe('1000');
    expect((await sb.post(key, '/v1/card/list', {})).body.cardList).toEqual([]);
    expect((await sb.post(key, '/v1/card/create', { amount: 10, currency: 'USDT' })).status).toBe(200);
  });

  it('dropResponse executes and commits, then resets the connection; the idempotent retry replays the result', async () => {
    const cardId = await newCard(sb, key, 10);
    await faults([{ path: '/v1/card/deposit', dropResponse: true }]);
    const headers = { 'Idempotency-Key': 'dep-1' };
    // Over a real connection: the dropped response is a reset socket.
    await expect(sb.socket.post(key, '/v1/card/deposit', { cardId, amount: 5 }, headers)).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    );
    expect(await walletAvailable(sb, key)).toBe('985');
    const retry = await sb.post(key, '/v1/card/deposit', { cardId, amount: 5 }, headers);
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(await walletAvailable(sb, key)).toBe('985');
    await sb.advance(key, 3);
    expect((await cardAsset(sb, key, cardId)).availableAmount).toBe('15');
  });

  it('hold holds a keyed request in flight after its key is reserved, so a retry gets 4212; faults/release lets it go on', async () => {
    const cardId = await newCard(sb, key, 10);
    const hold = await holdNext(sb, acct, '/v1/card/deposit');
    const headers = { 'Idempotency-Key': 'dep-2' };
    const first = sb.post(key, '/v1/card/deposit', { cardId, amount: 5 }, headers).then((r) => r);
    await waitFor('the first request to reserve its key', () =>
      sb.deps.store.value("SELECT 1 FROM idempotency_keys WHERE key = 'dep-2' AND state = 'in_flight'"),
    );
    const second = await sb.post(key, '/v1/card/deposit', { cardId, amount: 5 }, headers);
    expect(second.status).toBe(409);
    expect(second.body.code).toBe(4212);
    // Account time does not release a hold: a day later it still waits, and nothing ran.
    await sb.advance(key, 86_400);
    expect(await walletAvailable(sb, key)).toBe('990');
    expect(sb.deps.heldRequests.heldCount(acct.accountId)).toBe(1);
    expect(await hold.release()).toBe(1);
    expect((await first).status).toBe(200);
    expect(await walletAvailable(sb, key)).toBe('985');
  });

  it('latencyMs is wall time: on a frozen clock the request is answered once the wall clock has moved that far', async () => {
    await sim(sb, key, 'clock', { mode: 'frozen' });
    await faults([{ path: '/v1/card/create', latencyMs: 50 }]);
    let answered = false;
    const held = sb.post(key, '/v1/card/create', { amount: 10, currency: 'USDT' }).then((r) => {
      answered = true;
      return r;
    });
    await waitFor('the request held', () => sb.deps.heldRequests.heldCount(acct.accountId) === 1);
    // An hour of account time changes nothing: the latency is the network's. Nothing ran (the wallet is whole).
    await sb.advance(key, 3600);
    expect(await walletAvailable(sb, key)).toBe('1000');
    expect([answered, sb.deps.heldRequests.heldCount(acct.accountId)]).toEqual([false, 1]);
    // 50 ms of the (test's) wall clock, and it runs.
    sb.wall.ms += 50;
    expect((await held).status).toBe(200);
    expect(await walletAvailable(sb, key)).toBe('990');
  });

  it.each(['faults/release', 'faults/clear', 'reset'])('%s lets every held request go on', async (path) => {
    await faults([
      { path: '/v1/card/list', hold: true, count: 2 },
      { path: '/v1/wallet/assetList', latencyMs: 60_000 },
    ]);
    const answers = [
      sb.post(key, '/v1/card/list', {}),
      sb.post(key, '/v1/card/list', {}),
      sb.post(key, '/v1/wallet/assetList', {}),
    ].map((r) => r.then((res) => res.status));
    await waitFor('three requests held', () => sb.deps.heldRequests.heldCount(acct.accountId) === 3);
    const res = await sim(sb, key, path);
    expect(res.status).toBe(200);
    if (path === 'faults/release') expect(res.body).toEqual({ code: 0, message: 'ok', released: 3 });
    expect(await Promise.all(answers)).toEqual([200, 200, 200]);
    expect(sb.deps.heldRequests.heldCount(acct.accountId)).toBe(0);
  });

  it('faults/release with nothing held answers released: 0 and changes nothing', async () => {
    await faults([{ path: '/v1/card/list', hold: true }]);
    expect((await sim(sb, key, 'faults/release')).body).toEqual({ code: 0, message: 'ok', released: 0 });
    const listed = await faults([{ path: '/v1/card/list', hold: true, count: 2 }]);
    expect(listed.body.rules).toEqual([
      { path: '/v1/card/list', count: 2, latencyMs: 0, dropResponse: false, hold: true },
    ]);
  });

  it('faults/held says how many requests a fault holds now, through HTTP, so a test waits on state before its retry', async () => {
    const held = async () => (await sim(sb, key, 'faults/held')).body;
    expect(await held()).toEqual({ code: 0, message: 'ok', held: 0 });
    await faults([{ path: '/v1/card/list', hold: true, count: 2 }]);
    const lists = [1, 2].map(() => sb.post(key, '/v1/card/list', {}).then((r) => r));
    await waitFor('both lists held, as faults/held tells it', async () => (await held()).held === 2);
    expect(sb.deps.heldRequests.heldCount(acct.accountId)).toBe(2);
    expect((await sim(sb, key, 'faults/release')).body.released).toBe(2);
    expect((await Promise.all(lists)).map((r) => r.status)).toEqual([200, 200]);
    expect((await held()).held).toBe(0);
  });

  it('a held request is abandoned when its client goes: its key is freed, and the retry executes once', async () => {
    const hold = await holdNext(sb, acct, '/v1/card/create');
    const client = new AbortController();
    const body = JSON.stringify({ amount: 10, currency: 'USDT' });
    // In-process, the request's abort signal is its client going away (over a socket: test/hosted/no-lockout).
    const first = createApp(sb.deps).request('/v1/card/create', {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json', 'Idempotency-Key': 'gone-1' },
      body,
      signal: client.signal,
    });
    await hold.held();
    client.abort();
    expect((await first).status).toBe(499);
    expect(sb.deps.heldRequests.heldCount(acct.accountId)).toBe(0);
    expect(await sb.deps.store.value("SELECT COUNT(*) FROM idempotency_keys WHERE key = 'gone-1'")).toBe(0);
    expect(await walletAvailable(sb, key)).toBe('1000');
    const retry = await sb.post(key, '/v1/card/create', JSON.parse(body), { 'Idempotency-Key': 'gone-1' });
    expect([retry.status, retry.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(await walletAvailable(sb, key)).toBe('990');
  });

  it('a request held on a child sandbox that its parent deletes meanwhile is refused as unauthenticated, not a 500', async () => {
    const child = (await sim(sb, key, 'sandboxes/create', { balance: 100 })).body;
    const hold = await holdNext(sb, child, '/v1/card/create');
    const held = sb.post(child.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' }).then((r) => r);
    await hold.held();
    expect((await sim(sb, key, 'sandboxes/delete', { accountId: child.accountId })).status).toBe(200);
    const res = await held;
    expect(res.body).toEqual({ code: 11002, message: 'Invalid or revoked API key: its sandbox was deleted' });
    expect(res.status).toBe(401);
  });

  it('applies only to the account that set it, and only to the exact path', async () => {
    await faults([{ path: '/v1/wallet/assetList', respond: { httpStatus: 503, code: 9999, message: 'down' } }]);
    const other = await fundedAccount(sb);
    expect((await sb.post(other.apiKey, '/v1/wallet/assetList', {})).status).toBe(200);
    expect((await sb.post(key, '/v1/card/list', {})).status).toBe(200);
    expect((await sb.post(key, '/v1/wallet/assetList', {})).body).toEqual({ code: 9999, message: 'down' });
  });

  it('faults/clear removes the rules, and so does reset', async () => {
    await faults([{ path: '/v1/card/list', count: 5, respond: { httpStatus: 500, code: 9999 } }]);
    expect((await sim(sb, key, 'faults/clear')).body).toEqual({ code: 0, message: 'ok' });
    expect((await sb.post(key, '/v1/card/list', {})).status).toBe(200);
    await faults([{ path: '/v1/card/list', count: 5, respond: { httpStatus: 500, code: 9999 } }]);
    await sim(sb, key, 'reset');
    expect((await sb.post(key, '/v1/card/list', {})).status).toBe(200);
  });

  it.each([
    ['/sandbox/v1/clock', { hold: true }],
    ['/sandbox/v1/clock', { latencyMs: 1000 }],
    ['/sandbox/v1/reset', { hold: true }],
    ['/sandbox/v1/faults/release', { latencyMs: 5 }],
    ['/admin/v1/accounts/acct_x', { hold: true }],
  ])(
    'refuses a rule that would hold or delay %s, outside the in-flight budget (%j), keeping the rules there were',
    async (path, effect) => {
      await faults([{ path: '/v1/card/list', latencyMs: 10 }]);
      const res = await faults([
        { path: '/v1/card/create', respond: { httpStatus: 500, code: 9999 } },
        { path, ...effect },
      ]);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(
        `rules[1]: ${path} is outside the in-flight budget, so a rule may not hold it nor add latencyMs to it (respond and dropResponse may)`,
      );
      // Refused whole: the rules armed before are the ones still armed.
      const listed = await faults([{ path: '/v1/card/list', latencyMs: 10 }]);
      expect(listed.body.rules).toHaveLength(1);
    },
  );

  it('takes respond and dropResponse rules on the clock and reset, which answer at once', async () => {
    const res = await faults([
      { path: '/sandbox/v1/clock', respond: { httpStatus: 503, code: 9999 } },
      { path: '/sandbox/v1/reset', dropResponse: true },
    ]);
    expect(res.status).toBe(200);
    expect((await sim(sb, key, 'clock', { advanceSeconds: 1 })).status).toBe(503);
    expect((await sim(sb, key, 'clock', { advanceSeconds: 1 })).status).toBe(200);
  });

  it('lists the armed rules, replacing earlier ones', async () => {
    await faults([{ path: '/v1/card/list', respond: { httpStatus: 500, code: 9999 } }]);
    const res = await faults([{ path: '/v1/card/create', latencyMs: 10, count: 3 }]);
    expect(res.body.rules).toEqual([
      { path: '/v1/card/create', count: 3, latencyMs: 10, dropResponse: false, hold: false },
    ]);
  });

  it.each([
    [{}, 'rules is required'],
    [{ rules: [{ path: 'v1/card/list', latencyMs: 1 }] }, 'rules[0].path must be a full request path'],
    [{ rules: [{ path: '/v1/card/list' }] }, 'rules[0] needs latencyMs, hold, respond or dropResponse'],
    [{ rules: [{ path: '/v1/card/list', hold: false }] }, 'rules[0] needs latencyMs, hold, respond or dropResponse'],
    [
      { rules: [{ path: '/v1/card/list', hold: true, latencyMs: 5 }] },
      'rules[0] cannot both hold and wait a latencyMs (a hold ends when released)',
    ],
    [{ rules: [{ path: '/v1/card/list', respond: { code: 1 } }] }, 'rules[0].respond needs httpStatus'],
    [{ rules: [{ path: '/v1/card/list', latencyMs: 60_001 }] }, 'latencyMs must be an integer'],
  ])('rejects %j with 400', async (body, message) => {
    const res = await sim(sb, key, 'faults', body as Record<string, unknown>);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(message);
  });
});
