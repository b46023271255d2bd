import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { cleanEnv, ensureBuilt, runCli, serveOn, stop, type ServeProcess } from '../helpers/cli-process.js';
import { expectConserved } from '../helpers/core.js';
import { call, post } from '../helpers/http-call.js';
import { onPostgres, postgresCopy } from '../helpers/postgres.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { isPostgresUrl } from '../../src/store/db.js';
import { reads, richAccount } from '../helpers/snapshot-state.js';

// Behaviour.md section 15: moving a tenant. A snapshot exported on SQLite boots `serve --snapshot FILE --db
// postgres://...` and imports into a child there, and a snapshot exported on PostgreSQL does both on SQLite. The
// oracle is the store the tenant came from: every partner read answers there as it answered before the move (the
// webhook endpoint under its new secret), and the moved account's own export is the document it was moved with.
// Both stores in one test need a PostgreSQL, which the run provides under TEST_STORE=postgres; a SQLite-only run
// skips, saying so.

const NEEDS_POSTGRES =
  'moving a tenant between SQLite and PostgreSQL needs a PostgreSQL server: the run starts one with TEST_STORE=postgres';

/** Both sides derive card numbers from the same server secret, as an operator moving tenants would configure them. */
const SECRET = 'snapshot-move-test-server-secret-0123456789';

/** A partner's calls to one account, on whichever sandbox it lives. */
interface Partner {
  post(path: string, body?: object): Promise<{ status: number; body: Record<string, unknown> }>;
  get(path: string): Promise<Record<string, unknown>>;
}

const sandboxes: TestSandbox[] = [];
const servers: ServeProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(() => ensureBuilt());

afterEach(async () => {
  for (const s of servers.splice(0)) await stop(s);
  for (const sb of sandboxes.splice(0)) await sb.close();
  for (const c of cleanups.splice(0)) await c();
});

function sandbox(store: 'sqlite' | 'postgres'): TestSandbox {
  const sb = createTestSandbox({ config: { secret: SECRET }, ...(store === 'sqlite' && { store }) });
  sandboxes.push(sb);
  return sb;
}

/** A new, migrated database on the run's PostgreSQL: its URL, with the password, as an operator passes `--db`. */
async function postgresDatabase(): Promise<string> {
  const db = await postgresCopy();
  cleanups.push(db.drop);
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${db.name}`;
  return url.toString();
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'snapshot-move-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function inProcess(sb: TestSandbox, key: string): Partner {
  return {
    post: async (path, body = {}) => await sb.post(key, path, body),
    get: async (path) => (await sb.request.get(path).set('X-API-KEY', key)).body as Record<string, unknown>,
  };
}

function served(url: string, key: string): Partner {
  return {
    post: async (path, body = {}) => await post(url, key, path, body),
    get: async (path) => (await call(url, key, 'GET', path)).body as Record<string, unknown>,
  };
}

/**
 * Everything a partner reads of the account (balances, cards, every bill, events, deliveries, the clock), each card's
 * number (or why it has none), and its webhook endpoint (its secret is new wherever a snapshot lands: only the
 * prefix of it differs).
 */
async function partnerView(partner: Partner, cards: string[]) {
  const view = await reads(async (path, body = {}) => {
    const res = await partner.post(path, body);
    expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  }, cards);
  for (const cardId of cards) {
    const { status, body } = await partner.post('/v1/card/sensitiveInfo', { cardId });
    view[`number ${cardId}`] = { status, body };
  }
  const { secretPrefix, ...webhook } = await partner.get('/v1/webhook');
  expect(secretPrefix).toMatch(/^whsec_/);
  return { ...view, webhook };
}

/** A snapshot without what each export stamps anew: when it was made, and the signature over that. */
function content(text: string): Record<string, unknown> {
  const { exportedAt: _at, signature: _sig, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return rest;
}

async function exportText(exporter: (path: string) => PromiseLike<{ status: number; text: string }>): Promise<string> {
  const res = await exporter('/sandbox/v1/snapshot/export');
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  return res.text;
}

/** An account with every kind of state on `store`, what a partner reads of it there, and its export in a file. */
async function tenantOn(store: 'sqlite' | 'postgres') {
  const sb = sandbox(store);
  expect((await sb.request.get('/healthz')).body.store).toBe(store);
  const { acct, cards } = await richAccount(sb);
  const view = await partnerView(inProcess(sb, acct.apiKey), cards);
  const text = await exportText((path) => sb.post(acct.apiKey, path));
  const file = join(tempDir(), 'snapshot.json');
  writeFileSync(file, text);
  return { acct, cards, view, text, file };
}

/** `serve --snapshot FILE --db DB` with the shared secret: the booted account answers with its new key. */
async function boot(db: string, file: string, accountId: string) {
  const booted = await serveOn(db, ['--snapshot', file], { SANDBOX_SECRET: SECRET });
  servers.push(booted);
  expect(booted.stdout()).toContain(`Ready account ${accountId} (from the snapshot ${file})`);
  const key = /API key \(shown once, keep it\): (\S+)/.exec(booted.stdout())![1]!;
  const health = (await call(booted.url, undefined, 'GET', '/healthz')).body as { store: string };
  expect(health.store).toBe(isPostgresUrl(db) ? 'postgres' : 'sqlite');
  return { url: booted.url, key };
}

/** snapshot/import of `text` into a new child of a new account of `sb`: the child's key, no id of it replaced. */
async function importAsChild(sb: TestSandbox, text: string, store: 'sqlite' | 'postgres') {
  expect((await sb.request.get('/healthz')).body.store).toBe(store);
  const parent = await sb.account({ balance: 1 });
  const res = await sb.post(parent.apiKey, '/sandbox/v1/snapshot/import', JSON.parse(text));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const child = res.body as { accountId: string; apiKey: string; changedIds: Record<string, string> };
  // The target database held none of the tenant's ids: the child holds them as they were.
  expect(child.changedIds).toEqual({});
  return child;
}

describe('moving a tenant between SQLite and PostgreSQL by its snapshot', () => {
  it('a SQLite export boots serve --snapshot on a PostgreSQL URL: every partner read answers as on SQLite, its export is the same document, and a restart keeps it', async ({
    skip,
  }) => {
    if (!onPostgres) return skip(NEEDS_POSTGRES);
    const tenant = await tenantOn('sqlite');
    const db = await postgresDatabase();
    const { url, key } = await boot(db, tenant.file, tenant.acct.accountId);
    expect(await partnerView(served(url, key), tenant.cards)).toEqual(tenant.view);
    expect(content(await exportText((path) => post(url, key, path)))).toEqual(content(tenant.text));

    // A restart on the database it made keeps that account under the same key, and loads nothing twice.
    await stop(servers.pop()!);
    const again = await serveOn(db, ['--snapshot', tenant.file], { SANDBOX_SECRET: SECRET });
    servers.push(again);
    expect(again.stdout()).not.toContain('API key (shown once');
    expect(await partnerView(served(again.url, key), tenant.cards)).toEqual(tenant.view);
  });

  it('a SQLite export imports into a child on PostgreSQL: every partner read answers as on SQLite, the books balance', async ({
    skip,
  }) => {
    if (!onPostgres) return skip(NEEDS_POSTGRES);
    const tenant = await tenantOn('sqlite');
    const to = sandbox('postgres');
    const child = await importAsChild(to, tenant.text, 'postgres');
    const view = await partnerView(inProcess(to, child.apiKey), tenant.cards);
    expect(view).toEqual(tenant.view);
    await expectConserved(to.deps, child.accountId);
  });

  it('a PostgreSQL export boots serve --snapshot on a SQLite file: every partner read answers as on PostgreSQL, and its export is the same document', async ({
    skip,
  }) => {
    if (!onPostgres) return skip(NEEDS_POSTGRES);
    const tenant = await tenantOn('postgres');
    const { url, key } = await boot(join(tempDir(), 'moved.db'), tenant.file, tenant.acct.accountId);
    expect(await partnerView(served(url, key), tenant.cards)).toEqual(tenant.view);
    expect(content(await exportText((path) => post(url, key, path)))).toEqual(content(tenant.text));
  });

  it('a PostgreSQL export imports into a child on SQLite: every partner read answers as on PostgreSQL, the books balance', async ({
    skip,
  }) => {
    if (!onPostgres) return skip(NEEDS_POSTGRES);
    const tenant = await tenantOn('postgres');
    const to = sandbox('sqlite');
    const child = await importAsChild(to, tenant.text, 'sqlite');
    const view = await partnerView(inProcess(to, child.apiKey), tenant.cards);
    expect(view).toEqual(tenant.view);
    await expectConserved(to.deps, child.accountId);
  });
});

describe('what the target store refuses of a moved snapshot', () => {
  it('serve --snapshot on a PostgreSQL database that already holds accounts exits 1 naming it without its password, as on a SQLite file', async ({
    skip,
  }) => {
    if (!onPostgres) return skip(NEEDS_POSTGRES);
    const tenant = await tenantOn('sqlite');
    const db = await postgresDatabase();
    await stop(await serveOn(db));
    const refused = await runCli(['serve', '--db', db, '--port', '0', '--snapshot', tenant.file], { env: cleanEnv() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/already holds accounts: a snapshot starts a new database only/);
    expect(refused.stderr).not.toContain(new URL(db).password);
  });

  it('a snapshot whose rows break a rule of the store (two transactions numbered alike) is a 400 SNAPSHOT_INVALID that makes no child, and serve --snapshot exits 1 naming it', async () => {
    const from = sandbox(onPostgres ? 'postgres' : 'sqlite');
    const { acct } = await richAccount(from);
    const doc = JSON.parse(await exportText((path) => from.post(acct.apiKey, path))) as {
      transactions: { acctSeq: number }[];
    };
    doc.transactions[1]!.acctSeq = doc.transactions[0]!.acctSeq;

    const to = sandbox(onPostgres ? 'postgres' : 'sqlite');
    const parent = await to.account({ balance: 1 });
    const res = await to.post(parent.apiKey, '/sandbox/v1/snapshot/import', doc);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toEqual({ code: 400, message: expect.stringMatching(/breaks a rule of the database/) });
    expect((await to.post(parent.apiKey, '/sandbox/v1/sandboxes/list')).body.sandboxes).toEqual([]);

    const file = join(tempDir(), 'edited.json');
    writeFileSync(file, JSON.stringify(doc));
    const targets = [join(tempDir(), 'edited.db'), ...(onPostgres ? [await postgresDatabase()] : [])];
    for (const db of targets) {
      const refused = await runCli(['serve', '--db', db, '--port', '0', '--snapshot', file], { env: cleanEnv() });
      expect(refused.code, `${db}: ${refused.stderr}`).toBe(1);
      expect(refused.stderr).toMatch(/^card-sandbox serve: --snapshot .*breaks a rule of the database/);
    }
  });
});
