import { defineConfig } from 'vitest/config';
import { SkipReasons } from './test/setup/skip-reasons.js';

// Limits are generous on purpose: `npm test` must pass on a machine whose cores are all busy (CI may share one), so a
// limit only bounds a hung run, never judges speed. Speed is `npm run bench`'s business. A longer property hunt
// (PROPERTY_RUNS_FACTOR, test/helpers/property-runs.ts) gets a limit as many times longer.
const LIMIT_MS = 300_000 * Math.max(1, Number(process.env.PROPERTY_RUNS_FACTOR) || 1);

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup/conformance.ts'],
    // A temp folder of the run's own, empty before and checked empty after (every test removes what it writes).
    globalSetup: ['test/setup/clean-temp.ts', 'test/setup/postgres.ts'],
    reporters: ['default', new SkipReasons()],
    pool: 'forks',
    // Most test files wait on sockets and child processes rather than compute: on 2 cores, 4 forks ran the suite in
    // 376 s where the default (one per core) took 615 s, every file green either way (2026-11-28).
    maxWorkers: 4,
    testTimeout: LIMIT_MS,
    hookTimeout: LIMIT_MS,
    teardownTimeout: LIMIT_MS,
  },
});
