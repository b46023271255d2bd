import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import { SkipReasons } from './test/setup/skip-reasons.js';

// Limits are generous on purpose: `npm test` must pass on a machine whose cores are all busy (CI may share one), so a
// limit only bounds a hung run, never judges speed. Speed is `npm run bench`'s business. A longer property hunt
// (PROPERTY_RUNS_FACTOR, test/helpers/property-runs.ts) gets a limit as many times longer.
const LIMIT_MS = 300_000 * Math.max(1, Number(process.env.PROPERTY_RUNS_FACTOR) || 1);

// The suites that run on both stores (issue "PostgreSQL as the second store", item 7): the store's conformance and
// schema parity, the ledger and idempotency properties, crash-restart and the webhook outbox, and the partner API
// suites of cards, transactions and the card network's hard cases. Every other file runs on SQLite; the whole suite
// runs on PostgreSQL with TEST_STORE=postgres (its own PostgreSQL, started for the run: test/setup/postgres.ts).
const ON_BOTH_STORES = [
  'test/store/**/*.test.ts',
  'test/conservation/**/*.test.ts',
  'test/idempotency/**/*.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/webhooks/delivery-order.test.ts',
  'test/webhooks/restart.test.ts',
  'test/cards/**/*.test.ts',
  'test/simulation/transactions.test.ts',
  'test/simulation/network-messages.test.ts',
  'test/http/bills.test.ts',
  'test/http/card-list-balances.test.ts',
  // Many instances on one database (issue 44): PostgreSQL only; on SQLite they skip, saying why.
  'test/instances/**/*.test.ts',
];

const everything = (name: string, env: Record<string, string>): TestProjectInlineConfiguration => ({
  extends: true,
  test: { name, include: ['test/**/*.test.ts'], env },
});

const wholeRunOnPostgres = process.env.TEST_STORE === 'postgres';

export default defineConfig({
  test: {
    setupFiles: ['test/setup/per-file.ts', 'test/setup/conformance.ts'],
    // A temp folder of the run's own, empty before and checked empty after (every test removes what it writes); a
    // PostgreSQL server for the project on it.
    globalSetup: ['test/setup/clean-temp.ts', 'test/setup/postgres.ts'],
    reporters: ['default', new SkipReasons()],
    pool: 'forks',
    // A worker imports the sandbox's modules once for all the files it runs, not once per file: on 2 cores the whole
    // suite took 610 s where isolated files took 966 s, on one busy machine (2026-11-28). What a file could leave in
    // a shared module for the next is put back by test/setup/per-file.ts.
    isolate: false,
    // Most test files wait on sockets and child processes rather than compute: on 2 cores, 4 forks ran the suite in
    // 376 s where the default (one per core) took 615 s, every file green either way (2026-11-28).
    maxWorkers: 4,
    testTimeout: LIMIT_MS,
    hookTimeout: LIMIT_MS,
    teardownTimeout: LIMIT_MS,
    projects: wholeRunOnPostgres
      ? [everything('postgres', { TEST_STORE: 'postgres' })]
      : [
          everything('sqlite', { TEST_STORE: 'sqlite' }),
          { extends: true, test: { name: 'postgres', include: ON_BOTH_STORES, env: { TEST_STORE: 'postgres' } } },
        ],
  },
});
