import { createHash } from 'node:crypto';
import { createApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import type { ServerDeps as Deps } from '../../src/http/server-deps.js';
import { createDeps } from '../../src/wiring.js';
import { ADMIN_TOKEN, START_MS, testConfig } from '../helpers/sandbox.js';

export { ADMIN_TOKEN };

export interface Route {
  method: string;
  path: string;
}

/** A fresh in-memory sandbox driven through `app.request` (no port: the fuzzer sends thousands of requests). */
export interface World {
  deps: Deps;
  app: ReturnType<typeof createApp>;
  routes: Route[];
  /** Account A (the caller) with cards; B, another account, with a card of its own. */
  a: { accountId: string; apiKey: string; keyId: string; cards: string[] };
  /** A child sandbox of A: its own key, one tenant with A (hosted budgets are shared). */
  child: { accountId: string; apiKey: string };
  b: { accountId: string; apiKey: string; cards: string[] };
  revokedKey: string;
  close(): Promise<void>;
}

/**
 * The API reference pages answer HTML and static files by design; they take no input to fuzz. The console and the
 * `/` redirect to it are pages for people (tested in test/console), not API answers. `/metrics` answers Prometheus's
 * text format by design (test/ops/metrics.test.ts).
 */
const DOCUMENTATION = /^\/(docs|openapi\.json|console|metrics$|$)/;

/**
 * Routes left out of fuzzing: fault injection exists to make later calls answer 5xx or drop the connection on
 * purpose, which would be reported as the sandbox failing; a readiness run arms such faults for its window.
 */
const NOT_FUZZED = new Set(['/sandbox/v1/faults', '/sandbox/v1/readiness/run']);

/** Every concrete API route the app serves, read from the app itself (middleware entries left out). */
function routesOf(app: ReturnType<typeof createApp>): Route[] {
  const seen = new Map<string, Route>();
  for (const r of app.routes) {
    if (r.method === 'ALL' || NOT_FUZZED.has(r.path) || DOCUMENTATION.test(r.path)) continue;
    seen.set(`${r.method} ${r.path}`, { method: r.method, path: r.path });
  }
  return [...seen.values()];
}

export async function createWorld(overrides: Partial<Config> = {}): Promise<World> {
  const config = testConfig(overrides);
  const wall = { ms: START_MS };
  const deps = createDeps({ config, wallClock: () => wall.ms });
  const app = createApp(deps);
  const json = async (res: Response) => {
    const body = (await res.json()) as any;
    if (res.status >= 300) throw new Error(`setup failed: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const admin = (path: string, body: unknown) =>
    app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
      body: JSON.stringify(body),
    });
  const post = (key: string, path: string, body: unknown) =>
    app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(body),
    });
  const a = await json(await admin('/admin/v1/accounts', { depositAddress: null, balance: 1000 }));
  const b = await json(await admin('/admin/v1/accounts', { depositAddress: null, balance: 1000 }));
  const cardsA = [];
  for (let i = 0; i < 2; i++)
    cardsA.push((await json(await post(a.apiKey, '/v1/card/create', { amount: 20, currency: 'USDT' }))).cardId);
  await json(await post(a.apiKey, '/v1/card/deposit', { cardId: cardsA[0], amount: 5 }));
  const cardB = (await json(await post(b.apiKey, '/v1/card/create', { amount: 20, currency: 'USDT' }))).cardId;
  const extra = await json(await admin(`/admin/v1/accounts/${a.accountId}/keys`, {}));
  const del = await app.request(`/admin/v1/accounts/${a.accountId}/keys/${extra.keyId}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  await json(del);
  const child = await json(await post(a.apiKey, '/sandbox/v1/sandboxes/create', { name: 'fuzz', balance: 100 }));
  return {
    deps,
    app,
    routes: routesOf(app),
    a: { ...a, cards: cardsA },
    child: { accountId: child.accountId, apiKey: child.apiKey },
    b: { ...b, cards: [cardB] },
    revokedKey: extra.apiKey,
    close: () => deps.store.close(),
  };
}

// Tables whose rows are the money, the cards and what happened to them. Idempotency records are left out: a
// lookup may delete an expired one, which is housekeeping, not a change a partner can observe. So is the request
// log: it records every request, a refused one too, and writes its records in batches whenever its timer fires,
// which can be while a keyed write waits for its group commit.
const IGNORED = new Set(['idempotency_keys', 'schema_migrations', 'request_log']);

/**
 * A digest of every row of every state table: equal digests mean no observable state changed. Each table's rows are
 * taken in a sorted order (a statement without ORDER BY promises none, and PostgreSQL moves an updated row).
 */
export async function snapshot(deps: Deps): Promise<string> {
  const { store } = deps;
  const tables = await store.column<string>(
    store.dialect === 'postgres'
      ? "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
      : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  );
  const h = createHash('sha1');
  for (const t of tables) {
    if (IGNORED.has(t)) continue;
    h.update(t);
    const rows = (await store.all<Record<string, unknown>>(`SELECT * FROM "${t}"`)).map((row) =>
      JSON.stringify(Object.values(row)),
    );
    for (const row of rows.sort()) h.update(row);
  }
  return h.digest('hex');
}
