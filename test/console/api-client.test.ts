import { describe, expect, expectTypeOf, it } from 'vitest';
import { apiClient, type Answer, type AppFetch, type Schema } from '../../src/console/api.js';
import { createApp } from '../../src/app.js';
import { createTestSandbox } from '../helpers/sandbox.js';

// The console's API client: every answer typed from the contracts and told apart by `ok`, every failure the API's
// {code, message}, path parameters URL-encoded. The types are checked by `tsc --noEmit` (part of `npm test`): the
// expect-error lines below fail the build if a misspelt field or a missing path parameter stops being refused.

/** A fetch that answers `status` and `text` and remembers what it was asked. */
function canned(status: number, text: string) {
  const calls: { path: string; init: RequestInit }[] = [];
  const fetch: AppFetch = (path, init) => {
    calls.push({ path, init });
    return new Response(text === '' ? null : text, { status });
  };
  return { calls, fetch };
}

describe('console API client', () => {
  it("answers a contract's success schema, narrowed on ok", async () => {
    const sb = createTestSandbox();
    try {
      const acct = await sb.account({ balance: 1000 });
      const app = createApp(sb.deps);
      const api = apiClient((path, init) => app.request(path, init), { apiKey: acct.apiKey });
      const answer = await api.post('/v1/card/list', {});
      expectTypeOf(answer).toEqualTypeOf<Answer<Schema<'api.card.list.response'>>>();
      expect(answer.ok).toBe(true);
      if (answer.ok) expect(answer.body.cardList).toEqual([]);
    } finally {
      await sb.close();
    }
  });

  it('sends path parameters URL-encoded into the template, with the bearer token', async () => {
    const { calls, fetch } = canned(200, '{"code":0,"message":"ok"}');
    const api = apiClient(fetch, { adminToken: 'tok' });
    const answer = await api.send('DELETE', '/admin/v1/accounts/{id}/keys/{keyId}', {
      params: { id: 'acct/1', keyId: 'key 2' },
    });
    expect(answer).toEqual({ ok: true, status: 200, body: { code: 0, message: 'ok' } });
    expect(calls[0]!.path).toBe('/admin/v1/accounts/acct%2F1/keys/key%202');
    expect(calls[0]!.init.method).toBe('DELETE');
    expect(new Headers(calls[0]!.init.headers).get('authorization')).toBe('Bearer tok');
  });

  it('sends every keyed write with an Idempotency-Key: its form’s when given, else one of its own; reads none', async () => {
    const { calls, fetch } = canned(200, '{"code":0,"message":"ok"}');
    const api = apiClient(fetch, { apiKey: 'k' });
    await api.post('/v1/card/freeze', { cardId: 'c' }, { idempotencyKey: 'from-the-form' });
    await api.post('/v1/card/deposit', { cardId: 'c', amount: 1, currency: 'USDT' });
    await api.post('/v1/card/deposit', { cardId: 'c', amount: 1, currency: 'USDT' });
    await api.post('/v1/card/asset', { cardId: 'c' });
    await api.post('/sandbox/v1/clock', {});
    const keys = calls.map((call) => new Headers(call.init.headers).get('idempotency-key'));
    expect(keys[0]).toBe('from-the-form');
    expect(keys[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[2]).not.toBe(keys[1]);
    expect(keys.slice(3)).toEqual([null, null]);
  });

  it('declares the JSON body it sends and its length in bytes', async () => {
    const { calls, fetch } = canned(200, '{}');
    await apiClient(fetch, { apiKey: 'k' }).post('/v1/card/create', { amount: 5, currency: 'USDT', alias: 'é' });
    const headers = new Headers(calls[0]!.init.headers);
    expect(calls[0]!.init.body).toBe('{"amount":5,"currency":"USDT","alias":"é"}');
    // 42 characters, 43 bytes: é is two bytes in UTF-8.
    expect(headers.get('content-length')).toBe('43');
    expect(headers.get('x-api-key')).toBe('k');
  });

  it.each([
    [
      'an error body',
      400,
      '{"code":3001,"message":"Insufficient balance"}',
      { code: 3001, message: 'Insufficient balance' },
    ],
    [
      'HTTP 200 with a non-zero code',
      200,
      '{"code":4001,"message":"Card not found"}',
      { code: 4001, message: 'Card not found' },
    ],
    ['a body that is not JSON', 502, 'Bad gateway', { code: 502, message: 'Bad gateway' }],
    ['an empty body', 403, '', { code: 403, message: '' }],
  ])("fails with the API's {code, message}: %s", async (_name, status, text, body) => {
    const answer = await apiClient(canned(status, text).fetch, { apiKey: 'k' }).post('/v1/wallet/assetList', {});
    expect(answer).toEqual({ ok: false, status, body });
  });

  it('refuses at compile time a field the contract does not name, and a template without its parameters', () => {
    const api = apiClient(canned(200, '{}').fetch, { apiKey: 'k' });
    // @ts-expect-error cardID is not a field of card/detail
    void api.post('/v1/card/detail', { cardID: '1' });
    // @ts-expect-error the path has a parameter {id}
    void api.send('GET', '/admin/v1/accounts/{id}');
    // @ts-expect-error /v1/card/list answers POST only
    void api.send('GET', '/v1/card/list');
    // A form's text may stand where the contract wants a number: the API judges it and names what is wrong.
    void api.post('/v1/card/create', { amount: 'ten', currency: 'USDT' });
  });
});
