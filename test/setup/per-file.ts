import { afterAll, vi } from 'vitest';
import { restoreFixtureDefaults } from '../helpers/fixtures.js';
import { removeProxyFolders } from '../helpers/proxy-process.js';

// Test files share their worker's modules (vitest.config.ts, `isolate: false`), so what a file leaves in a module
// would reach the next file of the worker: each file starts from the fixtures' defaults, and ends with real timers and
// without the folders its proxies wrote.
restoreFixtureDefaults();

afterAll(() => {
  vi.useRealTimers();
  removeProxyFolders();
});
