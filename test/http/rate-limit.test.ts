import { afterEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
afterEach(() => sb.close());

const assetList = (key: string) => sb.post(key, '/v1/wallet/assetList', {});

describe('hosted mode: per-API-key rate limit', () => {
  it('answers 429 {code: 429, message} with Retry-After once a key spends its per-second budget', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 3 } });
    const { apiKey } = await sb.account();
    for (let i = 0; i < 3; i++) expect((await assetList(apiKey)).status).toBe(200);
    const limited = await assetList(apiKey);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ code: 429, message: 'Too many requests: at most 3 per second per API key' });
    expect(limited.headers['retry-after']).toBe('1');
    expect(limited.headers['x-request-id']).toBeDefined();
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

  it('counts each API key apart, and /v1 and /sandbox/v1 against the same budget', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 2 } });
    const a = await sb.account();
    const b = await sb.account();
    await assetList(a.apiKey);
    await sb.post(a.apiKey, '/sandbox/v1/wallet/seed', { amount: 1 });
    expect((await sb.post(a.apiKey, '/sandbox/v1/wallet/seed', { amount: 1 })).status).toBe(429);
    expect((await assetList(b.apiKey)).status).toBe(200);
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
