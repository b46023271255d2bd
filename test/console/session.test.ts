import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging/logger.js';
import { ADMIN_TOKEN, createTestSandbox, type TestSandbox, sqliteOf } from '../helpers/sandbox.js';
import { csrfOf, session, signIn } from '../helpers/console-session.js';
import { onPostgres } from '../helpers/postgres.js';

// The console's session rules over plain HTTP (no browser needed): who gets in, what a cookie can read, how forms
// are protected, and where the API key may never appear.

let sb: TestSandbox;
let dir: string | undefined;
afterEach(async () => {
  await sb?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const get = (path: string, cookie?: string) => {
  const req = request(sb.server).get(path);
  return cookie ? req.set('Cookie', cookie) : req;
};

describe('console sessions', () => {
  it('GET / redirects to /console, and a page without a session redirects to sign-in', async () => {
    sb = createTestSandbox();
    expect((await get('/')).headers.location).toBe('/console');
    for (const path of ['/console', '/console/cards', '/console/webhooks/live', '/console/operator']) {
      const res = await get(path);
      expect(res.status, path).toBe(302);
      expect(res.headers.location).toBe('/console/signin');
    }
    const bogus = await get('/console', 'console_session=forged');
    expect(bogus.headers.location).toBe('/console/signin');
    const signInPage = await get('/console/signin');
    expect(signInPage.status).toBe(200);
    expect(signInPage.text).toContain('<label for="api-key">API key</label>');
  });

  it('a POST without a session goes to sign-in and calls nothing', async () => {
    sb = createTestSandbox();
    const { apiKey } = await sb.account({ balance: 100 });
    const res = await request(sb.server).post('/console/cards').type('form').send({ amount: '10' });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/console/signin');
    expect((await sb.post(apiKey, '/v1/card/list', {})).body.cardList).toEqual([]);
  });

  it('the session cookie is HttpOnly and SameSite=Strict, scoped to /console, Secure when the request came over https', async () => {
    sb = createTestSandbox();
    const { apiKey } = await sb.account();
    const plain = await session(sb.server, apiKey);
    expect(plain.setCookie).toMatch(/^console_session=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict$/);
    expect(plain.location).toBe('/console');
    expect(plain.setCookie).not.toContain(apiKey);
    const proxied = await session(sb.server, apiKey, { 'X-Forwarded-Proto': 'https' });
    expect(proxied.setCookie).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  });

  it("refuses an unknown key with the API's 11002 and starts no session", async () => {
    sb = createTestSandbox();
    const res = await request(sb.server).post('/console/signin').type('form').send({ apiKey: 'sk_sandbox_wrong' });
    expect(res.status).toBe(400);
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.text).toContain('11002');
    expect(res.text).not.toContain('sk_sandbox_wrong');
  });

  it("a cookie from one account never reads another account's data", async () => {
    sb = createTestSandbox();
    const a = await sb.account({ balance: 100 });
    const b = await sb.account({ balance: 500 });
    const bCard = (
      await sb.post(b.apiKey, '/v1/card/create', { amount: 50, currency: 'USDT', alias: 'B secret alias' })
    ).body.cardId as string;
    const { cookie } = await session(sb.server, a.apiKey);
    const card = await get(`/console/cards/${bCard}`, cookie);
    expect(card.status).toBe(404);
    expect(card.text).toContain('4001');
    expect(card.text).not.toContain('B secret alias');
    const transactions = await get(`/console/transactions?card=${bCard}`, cookie);
    expect(transactions.text).toContain('4001');
    const home = await get('/console', cookie);
    expect(home.text).toContain('100.00');
    expect(home.text).not.toContain('500.00');
    expect(home.text).not.toContain(bCard);
  });

  it("refuses a form without the session's CSRF token, and the card stays active", async () => {
    sb = createTestSandbox();
    const { apiKey } = await sb.account({ balance: 100 });
    const cardId = (await sb.post(apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' })).body.cardId as string;
    const { cookie, csrf } = await session(sb.server, apiKey);
    const forged = await request(sb.server)
      .post(`/console/cards/${cardId}/freeze`)
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: 'not-the-token' });
    expect(forged.status).toBe(403);
    expect((await sb.post(apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('ACTIVE');
    const real = await request(sb.server)
      .post(`/console/cards/${cardId}/freeze`)
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf });
    expect(real.status).toBe(303);
    expect((await sb.post(apiKey, '/v1/card/detail', { cardId })).body.cardStatus).toBe('FROZEN');
  });

  it('Sign out ends the session on the server', async () => {
    sb = createTestSandbox();
    const { apiKey } = await sb.account();
    const { cookie, csrf } = await session(sb.server, apiKey);
    const out = await request(sb.server)
      .post('/console/signout')
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf });
    expect(out.status).toBe(303);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    expect((await get('/console', cookie)).headers.location).toBe('/console/signin');
  });

  it('the API key never reaches a URL, a log line or the database file', async ({ skip }) => {
    dir = mkdtempSync(join(tmpdir(), 'console-secrecy-'));
    let logText = '';
    sb = createTestSandbox({
      config: { dbPath: join(dir, 'sandbox.db') },
      logger: createLogger({ level: 'debug', destination: { write: (line: string) => void (logText += line) } }),
    });
    const { apiKey } = await sb.account({ balance: 100 });
    const { cookie, csrf, location } = await session(sb.server, apiKey);
    await request(sb.server)
      .post('/console/cards')
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf, amount: '20' });
    for (const path of [
      '/console',
      '/console/cards',
      '/console/transactions',
      '/console/simulate',
      '/console/events',
    ]) {
      const res = await get(path, cookie);
      expect(res.status, path).toBe(200);
      expect(res.text).not.toContain(apiKey);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    expect(location).not.toContain(apiKey);
    expect(logText).toContain('/console/cards');
    expect(logText).not.toContain(apiKey);
    if (onPostgres)
      return skip('searches the bytes of a SQLite database file; a PostgreSQL sandbox keeps no file here');
    sqliteOf(sb.deps).pragma('wal_checkpoint(TRUNCATE)');
    const file = join(dir, 'sandbox.db');
    const bytes = [file, file + '-wal']
      .filter(existsSync)
      .map((f) => readFileSync(f).toString('latin1'))
      .join('');
    expect(bytes).not.toContain(apiKey);
  });
});

describe('console switch', () => {
  it('is on by default, hosted mode too; --console off and SANDBOX_CONSOLE=off turn it off', () => {
    expect(loadConfig([], {}).config.console).toBe(true);
    expect(loadConfig(['--mode', 'hosted', '--admin-token', 'a-hosted-admin-token'], {}).config.console).toBe(true);
    expect(loadConfig(['--console', 'off'], {}).config.console).toBe(false);
    expect(loadConfig([], { SANDBOX_CONSOLE: 'off' }).config.console).toBe(false);
    expect(() => loadConfig(['--console', 'maybe'], {})).toThrow(/console must be one of on, off/);
  });

  it('when off, neither / nor /console answers', async () => {
    sb = createTestSandbox({ config: { console: false } });
    expect((await get('/')).status).toBe(404);
    expect((await get('/console')).status).toBe(404);
  });
});

describe('console operator view', () => {
  it('with the operator token: creates an account (key shown once), issues and revokes keys through /admin/v1', async () => {
    sb = createTestSandbox();
    const { res: wrong } = await signIn(sb.server, { adminToken: 'nope' });
    expect(wrong.status).toBe(400);
    const operator = await signIn(sb.server, { adminToken: ADMIN_TOKEN });
    expect(operator.res.headers.location).toBe('/console/operator');
    const cookie = operator.cookie!;
    const csrf = await csrfOf(sb.server, cookie, '/console/operator');
    // An operator session has no API key: the account pages send it back to its own view.
    expect((await get('/console/cards', cookie)).headers.location).toBe('/console/operator');
    const created = await request(sb.server)
      .post('/console/operator/accounts')
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf, name: 'QA team', balance: '250' });
    const accountPage = await get(created.headers.location as string, cookie);
    const apiKey = /API key \(shown once\)<\/span><code>([^<]+)</.exec(accountPage.text)![1]!;
    expect((await sb.post(apiKey, '/v1/wallet/assetList', {})).body.assetList[0].availableAmount).toBe('250');
    expect((await get(created.headers.location as string, cookie)).text).not.toContain(apiKey);
    const accountId = /id=(acct_\w+)/.exec(created.headers.location as string)![1]!;
    const issued = await request(sb.server)
      .post(`/console/operator/accounts/${accountId}/keys`)
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf });
    const second = /API key \(shown once\)<\/span><code>([^<]+)</.exec(
      (await get(issued.headers.location, cookie)).text,
    )![1]!;
    const keys = (await sb.admin('get', `/admin/v1/accounts/${accountId}`)).body.keys as { keyId: string }[];
    expect(keys).toHaveLength(2);
    await request(sb.server)
      .post(`/console/operator/accounts/${accountId}/keys/${keys[1]!.keyId}/revoke`)
      .set('Cookie', cookie)
      .type('form')
      .send({ _csrf: csrf });
    const after = await sb.post(second, '/v1/wallet/assetList', {});
    const first = await sb.post(apiKey, '/v1/wallet/assetList', {});
    expect([after.status, first.status].sort()).toEqual([200, 401]);
  });
});
