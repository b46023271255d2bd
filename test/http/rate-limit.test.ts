import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
afterEach(() => sb.close());

const assetList = (key: string) => sb.post(key, '/v1/wallet/assetList', {});

describe('hosted mode: one rate limit per tenant (an account and its child sandboxes)', () => {
  it('answers 429 {code: 429, message} with Retry-After once a key spends its per-second budget', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 3 } });
    const { apiKey } = await sb.account();
    for (let i = 0; i < 3; i++) expect((await assetList(apiKey)).status).toBe(200);
    const limited = await assetList(apiKey);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      code: 429,
      message: 'Too many requests: at most 3 per second per account, its child sandboxes included',
    });
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{20}$/);
  });

  it('refills on the wall clock: a second later the key is served again', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 2 } });
    const { apiKey } = await sb.account();
    await assetList(apiKey);
    await assetList(apiKey);
    expect((await assetList(apiKey)).status).toBe(429);
    sb.wall.ms += 500;
    expect((await assetList(apiKey)).status).toBe(200);
    expect((await assetList(apiKey)).status).toBe(429);
    sb.wall.ms += 1000;
    expect((await assetList(apiKey)).status).toBe(200);
  });

  it('does not let a partner buy requests by advancing its account clock', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 2 } });
    const { apiKey } = await sb.account();
    await sb.advance(apiKey, 3600);
    await assetList(apiKey);
    expect((await assetList(apiKey)).status).toBe(429);
  });

  it('shares one budget between an account, its other keys and its child sandboxes: children buy no requests', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 4, rateLimitHoldMs: 0 } });
    const parent = await sb.account();
    const second = await sb.admin('post', `/admin/v1/accounts/${parent.accountId}/keys`);
    const children = [];
    for (const name of ['a', 'b']) {
      const created = await sb.post(parent.apiKey, '/sandbox/v1/sandboxes/create', { name });
      children.push(created.body.apiKey as string);
    }
    // Three of the four tokens went on the calls above (the operator API has no budget).
    sb.wall.ms += 1000;
    const keys = [parent.apiKey, second.body.apiKey as string, ...children];
    const statuses = [];
    for (const key of [...keys, ...keys]) statuses.push((await assetList(key)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
    // Another tenant is served all along.
    const other = await sb.account();
    expect((await assetList(other.apiKey)).status).toBe(200);
  });

  it('counts each tenant apart, and /v1 and /sandbox/v1 against the same budget', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 2 } });
    const a = await sb.account();
    const b = await sb.account();
    await assetList(a.apiKey);
    await sb.post(a.apiKey, '/sandbox/v1/wallet/seed', { amount: 1 });
    expect((await sb.post(a.apiKey, '/sandbox/v1/wallet/seed', { amount: 1 })).status).toBe(429);
    expect((await assetList(b.apiKey)).status).toBe(200);
  });

  it('spends a token per 64 KiB of a declared body: a 640 KiB body spends 11 of the 12 a second', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 12, rateLimitHoldMs: 0 } });
    const { apiKey } = await sb.account();
    const large = JSON.stringify({ pad: 'x'.repeat(640 * 1024) });
    expect((await sb.post(apiKey, '/v1/card/list', large)).status).toBe(200);
    expect((await assetList(apiKey)).status).toBe(200);
    expect((await assetList(apiKey)).status).toBe(429);
    sb.wall.ms += 1000;
    expect((await assetList(apiKey)).status).toBe(200);
  });

  it('counts a body declared over 1 MiB by its size, at most a second of budget: within it 413, past it 429', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 2, rateLimitHoldMs: 0 } });
    const { apiKey } = await sb.account();
    const oversized = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    expect((await sb.post(apiKey, '/v1/card/list', oversized)).status).toBe(413);
    expect((await assetList(apiKey)).status).toBe(429);
    sb.wall.ms += 1000;
    expect((await sb.post(apiKey, '/v1/card/list', oversized)).status).toBe(413);
    expect((await sb.post(apiKey, '/sandbox/v1/wallet/seed', oversized)).status).toBe(429);
    expect((await sb.post('sk_sandbox_unknown', '/v1/card/list', oversized)).status).toBe(401);
  });

  it('checks the key first: a bad key is 401, never 429', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 1 } });
    for (let i = 0; i < 3; i++) expect((await assetList('sk_sandbox_unknown')).status).toBe(401);
  });
});

describe('local mode', () => {
  it('is unlimited', async () => {
    sb = createTestSandbox({ config: { mode: 'local', rateLimitPerSecond: 1 } });
    const { apiKey } = await sb.account();
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push((await assetList(apiKey)).status);
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});

describe('hosted mode: a 429 is held before it is sent', () => {
  afterEach(() => vi.useRealTimers());

  /** The answer to an over-budget request, and whether it has come yet. */
  function watched(key: string) {
    const w = { settled: false, answer: assetList(key) };
    void w.answer.then(() => (w.settled = true));
    return w;
  }

  it('sends the 429 one second after the request, so a client retrying at once cannot spin on refusals', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 1 } });
    const { apiKey } = await sb.account();
    expect((await assetList(apiKey)).status).toBe(200);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const refused = watched(apiKey);
    await vi.advanceTimersByTimeAsync(999);
    expect(refused.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const res = await refused.answer;
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('1');
  });

  it('holds no other key: a second tenant is served while the first one waits for its 429s', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 1 } });
    const a = await sb.account();
    const b = await sb.account();
    await assetList(a.apiKey);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const refused = Array.from({ length: 10 }, () => watched(a.apiKey));
    expect((await assetList(b.apiKey)).status).toBe(200);
    expect(refused.filter((w) => w.settled)).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect((await Promise.all(refused.map((w) => w.answer))).map((r) => r.status)).toEqual(Array(10).fill(429));
  });

  it('holds at most 64 refusals of a tenant: past that the 429 is sent at once and closes its connection', async () => {
    // The tenant's bound on requests in flight (32 by default) would refuse before; it has its own test.
    sb = createTestSandbox({
      config: { mode: 'hosted', rateLimitPerSecond: 1, tenant: { ...DEFAULT_CONFIG.tenant, maxInFlight: 1000 } },
    });
    const { apiKey } = await sb.account();
    await assetList(apiKey);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const held = Array.from({ length: 64 }, () => watched(apiKey));
    await vi.advanceTimersByTimeAsync(0);
    const past = await assetList(apiKey);
    expect(past.status).toBe(429);
    expect(past.headers.connection).toBe('close');
    expect(held.filter((w) => w.settled)).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1000);
    const answers = await Promise.all(held.map((w) => w.answer));
    expect(answers.every((r) => r.status === 429 && r.headers.connection === undefined)).toBe(true);
  });

  it('sends the 429 at once with --rate-limit-hold 0', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 1, rateLimitHoldMs: 0 } });
    const { apiKey } = await sb.account();
    await assetList(apiKey);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    expect((await assetList(apiKey)).status).toBe(429);
  });
});
