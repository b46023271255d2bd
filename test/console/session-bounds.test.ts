import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_SESSIONS,
  MAX_SESSIONS_PER_KEY,
  MAX_SESSIONS_PER_TENANT,
  SessionStore,
  SessionsFull,
} from '../../src/console/session.js';
import { ADMIN_TOKEN, createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { listen } from '../helpers/loopback.js';
import { csrfOf, signIn } from '../helpers/console-session.js';

// What a console user can make the server keep is bounded, and belongs to that user's key: a key's sessions, what
// a refused form keeps, a sign-in from another site, guesses of the operator token.

let sb: TestSandbox;
afterEach(() => sb?.close());

const signedIn = async (cookie: string) =>
  (await request(sb.server).get('/console').set('Cookie', cookie)).status === 200;

describe('console sessions belong to their key', () => {
  it(`a key holds at most ${MAX_SESSIONS_PER_KEY} sessions: its oldest goes, another key's session stays`, async () => {
    sb = createTestSandbox();
    const a = await sb.account();
    const b = await sb.account();
    const other = await signIn(sb.server, { apiKey: b.apiKey });
    const operatorCookie = (await signIn(sb.server, { adminToken: ADMIN_TOKEN })).cookie!;
    const cookies: string[] = [];
    for (let i = 0; i < MAX_SESSIONS_PER_KEY + 5; i++)
      cookies.push((await signIn(sb.server, { apiKey: a.apiKey })).cookie!);
    const alive = [];
    for (const cookie of cookies) alive.push(await signedIn(cookie));
    expect(alive).toEqual([...Array(5).fill(false), ...Array(MAX_SESSIONS_PER_KEY).fill(true)]);
    expect(await signedIn(other.cookie!)).toBe(true);
    expect((await request(sb.server).get('/console/operator').set('Cookie', operatorCookie)).status).toBe(200);
  });

  it(`a tenant holds at most ${MAX_SESSIONS_PER_TENANT} sessions across its keys and children: its oldest goes`, async () => {
    sb = createTestSandbox();
    const parent = await sb.account();
    const other = await sb.account();
    const theirs = await signIn(sb.server, { apiKey: other.apiKey });
    const keys = [parent.apiKey];
    for (let i = 0; i < 5; i++) {
      keys.push(
        (await sb.post(parent.apiKey, '/sandbox/v1/sandboxes/create', { name: `c${i}` })).body.apiKey as string,
      );
    }
    const perKey = 18; // below the key's own bound: the tenant's bound is the one reached
    const cookies: string[] = [];
    for (const key of keys)
      for (let i = 0; i < perKey; i++) cookies.push((await signIn(sb.server, { apiKey: key })).cookie!);
    const alive = [];
    for (const cookie of cookies) alive.push(await signedIn(cookie));
    const gone = keys.length * perKey - MAX_SESSIONS_PER_TENANT;
    expect(alive).toEqual([...Array(gone).fill(false), ...Array(MAX_SESSIONS_PER_TENANT).fill(true)]);
    expect(await signedIn(theirs.cookie!)).toBe(true);
  });

  it("a child sandbox's sessions end when the child is deleted, and a revoked key's with it", async () => {
    sb = createTestSandbox();
    const parent = await sb.account();
    const child = await sb.post(parent.apiKey, '/sandbox/v1/sandboxes/create', { name: 'short-lived' });
    const { cookie } = await signIn(sb.server, { apiKey: child.body.apiKey as string });
    expect(await signedIn(cookie!)).toBe(true);
    await sb.post(parent.apiKey, '/sandbox/v1/sandboxes/delete', { accountId: child.body.accountId });
    expect(await signedIn(cookie!)).toBe(false);
    const extra = await sb.admin('post', `/admin/v1/accounts/${parent.accountId}/keys`);
    const second = await signIn(sb.server, { apiKey: extra.body.apiKey as string });
    expect(await signedIn(second.cookie!)).toBe(true);
    await sb.admin('delete', `/admin/v1/accounts/${parent.accountId}/keys/${extra.body.keyId}`);
    expect(await signedIn(second.cookie!)).toBe(false);
  });

  it(`a full store (${MAX_SESSIONS.toLocaleString('en')} sessions) refuses the next sign-in and signs nobody out`, () => {
    const store = new SessionStore(() => 0);
    const first = store.create({ apiKey: 'key-0' }, 'tenant-0');
    for (let i = 1; i < MAX_SESSIONS; i++) store.create({ apiKey: `key-${i}` }, `tenant-${i}`);
    expect(() => store.create({ apiKey: 'key-new' }, 'tenant-new')).toThrow(SessionsFull);
    expect(store.find(first.id)).toBeDefined();
  });
});

describe('what a refused form keeps is bounded', () => {
  it('an alias of a million characters is kept to 4,096 for the form shown again', async () => {
    sb = createTestSandbox();
    const { apiKey } = await sb.account({ balance: 10 });
    const { cookie } = await signIn(sb.server, { apiKey });
    const csrf = await csrfOf(sb.server, cookie!, '/console/cards');
    const alias = 'a'.repeat(1_000_000);
    const refused = await request(sb.server)
      .post('/console/cards')
      .set('Cookie', cookie!)
      .type('form')
      .send({ _csrf: csrf, amount: '1000', alias });
    expect(refused.status).toBe(303);
    const next = await request(sb.server).get('/console/cards').set('Cookie', cookie!);
    expect(next.text).toContain('alias must be at most 256 characters');
    expect(next.text).toContain(`value="${'a'.repeat(4096)}"`);
    expect(next.text).not.toContain('a'.repeat(4097));
  });

  it('a Faults form of 5,000 nested brackets gets the API answer, never a 500', async () => {
    sb = createTestSandbox();
    const { apiKey } = await sb.account();
    const { cookie } = await signIn(sb.server, { apiKey });
    const csrf = await csrfOf(sb.server, cookie!, '/console/simulate');
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const res = await request(sb.server)
      .post('/console/simulate/faults')
      .set('Cookie', cookie!)
      .type('form')
      .send({ _csrf: csrf, rules: deep });
    expect(res.status).toBe(303);
    const next = await request(sb.server).get('/console/simulate').set('Cookie', cookie!);
    expect(next.text).toContain('Faults not set');
    expect(next.text).toMatch(/nest|deep/i);
  });
});

describe('sign-in guards', () => {
  const crossSite: Record<string, string>[] = [
    { 'Sec-Fetch-Site': 'cross-site' },
    { 'Sec-Fetch-Site': 'same-site' },
    { Origin: 'https://evil.example' },
    { Origin: 'null' },
  ];

  it.each(crossSite)('refuses a sign-in posted from another site (%o): 403, no cookie', async (headers) => {
    sb = createTestSandbox();
    const { apiKey } = await sb.account();
    const { res } = await signIn(sb.server, { apiKey }, headers);
    expect(res.status).toBe(403);
    expect(res.headers['set-cookie']).toBeUndefined();
    const { res: operator } = await signIn(sb.server, { adminToken: ADMIN_TOKEN }, headers);
    expect(operator.status).toBe(403);
    expect(operator.headers['set-cookie']).toBeUndefined();
  });

  it('accepts a sign-in from the console itself (same-origin, or an Origin naming this host)', async () => {
    sb = createTestSandbox();
    const { apiKey } = await sb.account();
    expect((await signIn(sb.server, { apiKey }, { 'Sec-Fetch-Site': 'same-origin' })).res.status).toBe(303);
    const base = await listen(sb.server);
    const res = await request(base).post('/console/signin').set('Origin', base).type('form').send({ apiKey });
    expect(res.status).toBe(303);
  });

  it('a credential no HTTP header can carry (a newline, a control or non-ASCII character) is refused with a 400, never a 500', async () => {
    sb = createTestSandbox();
    for (const apiKey of ['sk_sandbox_a\nb', 'sk\u0000x', 'sk_€']) {
      const { res } = await signIn(sb.server, { apiKey });
      expect(res.status).toBe(400);
      expect(res.text).toContain('11002');
    }
    const { res: operator } = await signIn(sb.server, { adminToken: 'Bearer a\nb' });
    expect(operator.status).toBe(400);
    expect(operator.text).toContain('Invalid operator token');
  });

  it('refuses a sign-in form larger than 8 KiB with 413 before reading it: anyone may post there, without a budget', async () => {
    sb = createTestSandbox();
    for (const path of ['/console/signin', '/console/operator/signin']) {
      const res = await request(sb.server)
        .post(path)
        .type('form')
        .send({ apiKey: 'x'.repeat(64 * 1024) });
      expect(res.status).toBe(413);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
  });

  it('throttles failed operator sign-ins and admin tokens per client address: a wrong one is 429 after 10 a minute, the right one still works', async () => {
    sb = createTestSandbox();
    const wrong = async () => (await signIn(sb.server, { adminToken: 'guess' })).res;
    const adminCall = (token: string) =>
      request(sb.server).get('/admin/v1/accounts/-').set('Authorization', `Bearer ${token}`);
    for (let i = 0; i < 5; i++) expect((await wrong()).status).toBe(400);
    for (let i = 0; i < 5; i++) expect((await adminCall('guess')).status).toBe(401);
    const throttled = await adminCall('guess');
    expect(throttled.status).toBe(429);
    expect(throttled.body.code).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    const throttledForm = await wrong();
    expect(throttledForm.status).toBe(429);
    expect(throttledForm.headers['set-cookie']).toBeUndefined();
    // The right token is never refused by the throttle: it reaches the route (no account "-": 404) and signs in.
    expect((await adminCall(ADMIN_TOKEN)).status).toBe(404);
    const { res: console } = await signIn(sb.server, { adminToken: ADMIN_TOKEN });
    expect(console.status).toBe(303);
    expect((await adminCall('guess')).status).toBe(429);
    sb.wall.ms += 60_000;
    expect((await adminCall('guess')).status).toBe(401);
  });

  it('throttles failed API-key sign-ins per client address: a wrong key is 429 after 10 a minute, a working one still signs in', async () => {
    sb = createTestSandbox();
    const acct = await sb.account();
    const guess = async (apiKey: string) => (await signIn(sb.server, { apiKey })).res;
    for (let i = 0; i < 10; i++) expect((await guess(`sk_sandbox_guess${i}`)).status).toBe(400);
    const throttled = await guess('sk_sandbox_guess10');
    expect(throttled.status).toBe(429);
    expect(throttled.text).toContain('Too many failed API keys from this address or its network');
    expect(throttled.headers['set-cookie']).toBeUndefined();
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    const right = await guess(acct.apiKey);
    expect(right.status).toBe(303);
    expect(right.headers['set-cookie']).toBeDefined();
    // The operator's sign-in counts apart: a partner's typos never lock the operator out.
    const { res: operator } = await signIn(sb.server, { adminToken: ADMIN_TOKEN });
    expect(operator.status).toBe(303);
    sb.wall.ms += 60_000;
    expect((await guess('sk_sandbox_guess11')).status).toBe(400);
  });
});
