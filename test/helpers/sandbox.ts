import { createAdaptorServer } from '@hono/node-server';
import type Database from 'better-sqlite3';
import type { Server } from 'node:http';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { toEnvelope } from '../../src/domain/events/outbox.js';
import { DEFAULT_CONFIG, type Config } from '../../src/config.js';
import type { ServerDeps as Deps } from '../../src/http/server-deps.js';
import type { Logger } from '../../src/domain/kernel/logger.js';
import { createDeps } from '../../src/wiring.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { ServerSecret } from '../../src/domain/kernel/secrets.js';
import { fetchAgent, type FetchAgent, type TestRequest } from './client.js';
import { conformance } from './conformance.js';
import { lazyPostgresStore, onPostgres } from './postgres.js';

export const ADMIN_TOKEN = 'test-admin-token';
/** 2026-06-01T00:00:00Z: every test starts its wall clock here. */
export const START_MS = Date.UTC(2026, 5, 1);

/** The account most simulation tests start from: 0 % deposit fee (card credits equal amounts), 1,000 USDT. */
export const FUNDED_ACCOUNT: Record<string, unknown> = { balance: 1000, depositFeeRate: '0' };

export interface AccountHandle {
  accountId: string;
  apiKey: string;
  keyId: string;
}

/** The calls a test makes, over the app's fetch (`sb`) or over a real socket (`sb.socket`). */
interface SandboxCalls<R> {
  /** A partner (or simulation) call: POST JSON with the account's key. */
  post(key: string | undefined, path: string, body?: unknown, headers?: Record<string, string>): R;
  admin(method: Method, path: string, body?: unknown): R;
}

export interface TestSandbox extends SandboxCalls<TestRequest> {
  deps: Deps & { ready: Promise<void> };
  /** The app behind a Node server, not listening: supertest (`sb.socket`) or a test listens on it when it needs to. */
  server: Server;
  /** Any request over the app's fetch, as `supertest(server)` would build it: `sb.request.get('/v1/webhook')`. */
  request: FetchAgent;
  /** The same calls over a real connection, for what only a socket shows (a dropped response, a reset). */
  socket: SandboxCalls<request.Test>;
  /** The fake wall clock; account clocks run on it, so time moves only when a test moves it. */
  wall: { ms: number };
  config: Config;
  /** A fresh account through the operator API. */
  account(opts?: Record<string, unknown>): Promise<AccountHandle>;
  /** Advance the account clock through the simulation API (runs due jobs). */
  advance(key: string, seconds: number): Promise<void>;
  close(): Promise<void>;
}

export interface SandboxOptions {
  config?: Partial<Config>;
  logger?: Logger;
  /** 'sqlite': on SQLite (config.dbPath) even when the run is on PostgreSQL, for a test that moves state between them. */
  store?: 'sqlite';
}

/** The configuration of an in-process test sandbox: in memory, no ready account, no timers, the test admin token. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return Object.freeze({
    ...DEFAULT_CONFIG,
    dbPath: ':memory:',
    adminToken: ADMIN_TOKEN,
    bootstrapAccount: false,
    backgroundJobs: false,
    ...overrides,
  });
}

/** A fresh in-memory sandbox per test: no port, no timers, a fake wall clock. */
export function createTestSandbox(opts: SandboxOptions = {}): TestSandbox {
  const config = testConfig(opts.config);
  const wall = { ms: START_MS };
  const deps = createDeps(
    { config, wallClock: () => wall.ms, logger: opts.logger },
    onPostgres && opts.store !== 'sqlite'
      ? {
          store: lazyPostgresStore(config.dbPath),
          // A file path stands for one database for the run (test/helpers/postgres.ts), and keeps one secret, as the
          // file beside a SQLite database does.
          secret:
            config.secret || config.dbPath !== ':memory:'
              ? ServerSecret.fromText(config.secret ?? config.dbPath)
              : ServerSecret.random(),
        }
      : undefined,
  );
  // Every answer and every event of every test is held to its contract (test/setup/conformance.ts reports).
  deps.events.add((event) => conformance.event(toEnvelope(event)));
  const app = createApp(deps);
  // The store's first-start work (the default BIN) is done before the first request, as a server does it before it
  // listens.
  const fetch = conformance.wrapFetch(async (...args: Parameters<typeof app.fetch>) => {
    await deps.ready;
    return app.fetch(...args);
  });
  const server = createAdaptorServer({ fetch }) as Server;
  const agent = fetchAgent(fetch);
  const sandbox: TestSandbox = {
    deps,
    server,
    wall,
    config,
    request: agent,
    ...sandboxCalls((method, path) => agent[method](path)),
    socket: sandboxCalls((method, path) => request(server)[method](path)),
    async account(body = {}) {
      const res = await sandbox.admin('post', '/admin/v1/accounts', { depositAddress: null, ...body });
      if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body as AccountHandle;
    },
    async advance(key, seconds) {
      const res = await sandbox.post(key, '/sandbox/v1/clock', { advanceSeconds: seconds });
      if (res.status !== 200) throw new Error(`clock advance failed: ${res.status} ${JSON.stringify(res.body)}`);
    },
    async close() {
      server.close();
      await deps.jobs.stop(0);
      await deps.ready.catch(() => undefined);
      await deps.store.close();
    },
  };
  return sandbox;
}

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** post() and admin() over any request builder with supertest's `.set()` and `.send()`. */
function sandboxCalls<R extends { set(name: string, value: string): R; send(body: string): R }>(
  open: (method: Method, path: string) => R,
): SandboxCalls<R> {
  return {
    post(key, path, body = {}, headers = {}) {
      let req = open('post', path).set('Content-Type', 'application/json');
      if (key !== undefined) req = req.set('X-API-KEY', key);
      for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
      return req.send(typeof body === 'string' ? body : JSON.stringify(body));
    },
    admin(method, path, body) {
      const req = open(method, path).set('Authorization', `Bearer ${ADMIN_TOKEN}`);
      return body === undefined ? req : req.set('Content-Type', 'application/json').send(JSON.stringify(body));
    },
  };
}

/**
 * The SQLite connection under a sandbox's store, for a test that reads the database's bytes as they are (a table's
 * rows, a pragma): the store's own statements are async and go through its queue; this reads at once, between
 * requests.
 */
export function sqliteOf(deps: { store: unknown }): Database.Database {
  if (!(deps.store instanceof SqliteStore)) throw new Error('this test reads a SQLite database');
  return deps.store.connection;
}
