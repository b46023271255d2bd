import { expect, test } from 'vitest';
import { createApp } from '../../src/app.js';
import { ServerSecret } from '../../src/domain/kernel/secrets.js';
import { openSqlite } from '../../src/store/db.js';
import { createDeps } from '../../src/wiring.js';
import { lazyPostgresStore, onPostgres } from '../helpers/postgres.js';
import { countedStore, countPostgresQueries, RoundTrips } from '../helpers/round-trips.js';
import { ADMIN_TOKEN, START_MS, testConfig } from '../helpers/sandbox.js';

// What a request of bench:postgres costs the store, counted (test/helpers/round-trips.ts): on PostgreSQL every
// statement is a round trip, and the round trips were what made its CPU per request 5-9x SQLite's (issue 43 item 8).
// The counts are the ones measured; a change that adds a statement to one of these requests shows here, and one
// that saves one lowers the table. The routes and bodies are the benchmark's (bench/lib/compare-scenarios.mjs), each
// counted on its third call (the account's bounds and caches warm, as under load).

const EXPECTED: Record<'sqlite' | 'postgres', Record<string, number>> = {
  sqlite: {
    'card/asset': 2,
    'card/list': 2,
    'wallet/assetList': 1,
    'card/create, keyed': 12,
    'card/deposit, keyed': 10,
    'wallet/assetList, a top-up due': 9,
  },
  postgres: {
    'card/asset': 3,
    'card/list': 3,
    'wallet/assetList': 2,
    'card/create, keyed': 10,
    'card/deposit, keyed': 9,
    'wallet/assetList, a top-up due': 8,
  },
};

const storeName = onPostgres ? 'postgres' : 'sqlite';

test(`the benchmark's requests cost the store the statements counted (${storeName})`, async () => {
  let elapsedMs = 0;
  const trips = new RoundTrips();
  const uncount = onPostgres ? countPostgresQueries(trips) : () => {};
  const store = onPostgres ? lazyPostgresStore(':memory:') : countedStore(openSqlite(':memory:'), trips);
  // The request log writes its records once a second, whatever the requests: off, so it never lands in a count.
  const config = testConfig({ requestLog: false });
  const deps = createDeps({ config, wallClock: () => START_MS + elapsedMs }, { store, secret: ServerSecret.random() });
  const app = createApp(deps);
  const call = async (path: string, body: unknown, headers: Record<string, string>) => {
    const res = await app.fetch(
      new Request(`http://sandbox${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    );
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  try {
    await deps.ready;
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const made = await call('/admin/v1/accounts', { depositAddress: null, balance: 1_000_000 }, admin);
    const key = { 'x-api-key': made.body.apiKey as string };
    let n = 0;
    const keyed = () => ({ ...key, 'idempotency-key': `k-${++n}` });
    const cards: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await call('/v1/card/create', { amount: 5, currency: 'USDT' }, keyed());
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      cards.push(res.body.cardId as string);
    }
    // A card refuses a deposit while its last one settles: each deposit goes to the next card.
    const requests: Record<string, () => ReturnType<typeof call>> = {
      'card/asset': () => call('/v1/card/asset', { cardId: cards[1] }, key),
      'card/list': () => call('/v1/card/list', {}, key),
      'wallet/assetList': () => call('/v1/wallet/assetList', {}, key),
      'card/create, keyed': () => call('/v1/card/create', { amount: 5, currency: 'USDT' }, keyed()),
      'card/deposit, keyed': () =>
        call('/v1/card/deposit', { cardId: cards[n % cards.length], amount: 1, currency: 'USDT' }, keyed()),
    };
    const counted: Record<string, number> = {};
    const statements: string[] = [];
    for (const [name, send] of Object.entries(requests)) {
      for (let i = 0; i < 3; i++) {
        trips.reset();
        const res = await send();
        expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
      }
      counted[name] = trips.count;
      statements.push(`${name} (${trips.count}):`, ...trips.statements.map((s) => `  ${s}`));
    }
    // A read that finds a top-up due (3 s after its deposit) settles it first: the catch-up's transaction.
    for (let i = 0; i < 3; i++) {
      expect((await requests['card/deposit, keyed']!()).status).toBe(200);
      elapsedMs += 10_000;
      trips.reset();
      expect((await requests['wallet/assetList']!()).status).toBe(200);
    }
    counted['wallet/assetList, a top-up due'] = trips.count;
    statements.push(`wallet/assetList, a top-up due (${trips.count}):`, ...trips.statements.map((s) => `  ${s}`));
    expect(counted, statements.join('\n')).toEqual(EXPECTED[storeName]);
  } finally {
    uncount();
    await deps.jobs.stop(0);
    await deps.store.close();
  }
});
