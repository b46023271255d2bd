import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let acct: AccountHandle;

const get = (key: string) => sb.request.get('/v1/webhook').set('X-API-KEY', key);
const put = (key: string, body: unknown) =>
  sb.request
    .put('/v1/webhook')
    .set('X-API-KEY', key)
    .set('Content-Type', 'application/json')
    .send(typeof body === 'string' ? body : JSON.stringify(body));
const del = (key: string) => sb.request.delete('/v1/webhook').set('X-API-KEY', key);
const rotate = (key: string) => sb.request.post('/v1/webhook/rotate-secret').set('X-API-KEY', key);

it.override({ accountOptions: {} });
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('GET /v1/webhook', () => {
  it('returns {configured: false} when no webhook exists', async () => {
    const res = await get(acct.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ configured: false });
  });

  it('requires the X-API-KEY like every /v1 endpoint', async () => {
    expect((await sb.request.get('/v1/webhook')).status).toBe(401);
  });
});

describe('PUT /v1/webhook', () => {
  it('creates the config and returns the one-time whsec_ secret; later reads show only secretPrefix', async () => {
    const res = await put(acct.apiKey, { url: 'https://hooks.example.com/cards' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      configured: true,
      url: 'https://hooks.example.com/cards',
      enabled: true,
      deliver3dsCode: false,
      secretPrefix: res.body.secret.slice(0, 14),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{32}$/),
    });
    const read = await get(acct.apiKey);
    expect(read.body).toEqual({
      configured: true,
      url: 'https://hooks.example.com/cards',
      enabled: true,
      deliver3dsCode: false,
      secretPrefix: res.body.secretPrefix,
    });
    expect(JSON.stringify(read.body)).not.toContain(res.body.secret);
  });

  it('updates on a later PUT without returning a secret, keeping fields the body leaves out', async () => {
    const first = await put(acct.apiKey, { url: 'https://a.example.com/', deliver3dsCode: true });
    const res = await put(acct.apiKey, { url: 'https://b.example.com/', enabled: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      configured: true,
      url: 'https://b.example.com/',
      enabled: false,
      deliver3dsCode: true,
      secretPrefix: first.body.secretPrefix,
    });
  });

  it('stores and returns deliver3dsCode as set', async () => {
    await put(acct.apiKey, { url: 'https://a.example.com/', deliver3dsCode: true });
    expect((await get(acct.apiKey)).body.deliver3dsCode).toBe(true);
    await put(acct.apiKey, { url: 'https://a.example.com/', deliver3dsCode: false });
    expect((await get(acct.apiKey)).body.deliver3dsCode).toBe(false);
  });

  it('never stores the signing secret in clear', async () => {
    const { secret } = (await put(acct.apiKey, { url: 'https://a.example.com/' })).body;
    const rows = await sb.deps.store.all('SELECT * FROM webhook_configs');
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(JSON.stringify(rows)).not.toContain(secret.slice(14));
  });

  it.each([
    [{}, 'url is required'],
    [{ url: 42 }, 'url must be a string'],
    [{ url: 'not a url' }, 'url must be an absolute https:// URL'],
    [{ url: 'ftp://example.com/' }, 'url must be an https:// URL'],
    [
      { url: 'http://example.com/hook' },
      'url must be https:// (http:// is accepted only to a loopback host, or by a server started with --allow-http-webhooks)',
    ],
    [{ url: 'https://user:pw@example.com/' }, 'url must not carry credentials'],
    [{ url: 'https://example.com/', enabled: 'yes' }, 'enabled must be a boolean'],
    [{ url: 'https://example.com/', deliver3dsCode: 1 }, 'deliver3dsCode must be a boolean'],
  ])('rejects %j with 400 and leaves the stored config unchanged', async (body, message) => {
    await put(acct.apiKey, { url: 'https://kept.example.com/' });
    const before = (await get(acct.apiKey)).body;
    const res = await put(acct.apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message });
    expect((await get(acct.apiKey)).body).toEqual(before);
  });

  it('rejects a body that is not JSON with 400', async () => {
    const res = await put(acct.apiKey, 'url=https://a.example.com');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
  });

  it.each(['http://localhost:9000/h', 'http://127.0.0.1/h', 'http://127.8.9.10:81/h', 'http://[::1]:8000/h'])(
    'accepts http:// to the loopback host %s in local mode',
    async (url) => {
      const res = await put(acct.apiKey, { url });
      expect(res.status).toBe(200);
      expect(res.body.url).toBe(url);
    },
  );

  describe('with allowHttpWebhooks', () => {
    it.override({ sandboxOptions: { config: { allowHttpWebhooks: true } } });

    it('accepts http:// to any host with allowHttpWebhooks', async () => {
      expect((await put(acct.apiKey, { url: 'http://receiver.ci.internal:8080/hooks' })).status).toBe(200);
    });
  });
});

describe('PUT /v1/webhook in hosted mode', () => {
  it.override({ sandboxOptions: { config: { mode: 'hosted' } } });

  it.each([
    'https://127.0.0.1/h',
    'https://localhost/h',
    'https://10.1.2.3/h',
    'https://172.20.0.5/h',
    'https://192.168.1.1/h',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/h',
    'https://[fe80::1]/h',
    'https://[fd00::1]/h',
    'https://[::ffff:10.0.0.1]/h',
    'http://localhost:8000/h',
  ])('refuses %s, which resolves to a private, loopback or link-local address', async (url) => {
    const res = await put(acct.apiKey, { url });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe(400);
    expect(res.body.message).toMatch(/public unicast addresses only|https/);
  });

  it('accepts a public address', async () => {
    expect((await put(acct.apiKey, { url: 'https://93.184.216.34/hooks' })).status).toBe(200);
  });
});

describe('POST /v1/webhook/rotate-secret', () => {
  it('returns a new secret once; reads then show its prefix', async () => {
    const first = (await put(acct.apiKey, { url: 'https://a.example.com/' })).body;
    const res = await rotate(acct.apiKey);
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(res.body.secret).not.toBe(first.secret);
    expect(res.body.secretPrefix).toBe(res.body.secret.slice(0, 14));
    expect((await get(acct.apiKey)).body.secretPrefix).toBe(res.body.secretPrefix);
  });

  it('fails with 400 when no webhook is configured', async () => {
    const res = await rotate(acct.apiKey);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: 'no webhook is configured: PUT /v1/webhook first' });
  });
});

describe('DELETE /v1/webhook', () => {
  it('removes the endpoint and answers {code: 0, message: "ok"}', async () => {
    await put(acct.apiKey, { url: 'https://a.example.com/' });
    const res = await del(acct.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, message: 'ok' });
    expect((await get(acct.apiKey)).body).toEqual({ configured: false });
  });

  it('succeeds when nothing is configured (idempotent)', async () => {
    const res = await del(acct.apiKey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ code: 0, message: 'ok' });
  });

  it('a PUT after DELETE creates a new config with a new one-time secret', async () => {
    const first = (await put(acct.apiKey, { url: 'https://a.example.com/' })).body;
    await del(acct.apiKey);
    const again = (await put(acct.apiKey, { url: 'https://a.example.com/' })).body;
    expect(again.secret).toMatch(/^whsec_/);
    expect(again.secret).not.toBe(first.secret);
  });
});

describe('webhook config is per account', () => {
  it("one account never sees another's config", async () => {
    const other = await sb.account();
    await put(acct.apiKey, { url: 'https://a.example.com/' });
    expect((await get(other.apiKey)).body).toEqual({ configured: false });
  });
});
