import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { expandFiles } from '../../src/scenario/glob.js';
import { consoleReport } from '../../src/scenario/report.js';
import { loadAll, runScenarios, type RunnerOptions } from '../../src/scenario/runner.js';
import { startServer, type RunningServer } from '../../src/server.js';

async function runLibrary(opts: RunnerOptions = {}) {
  const files = await expandFiles(['scenarios/*.yaml', 'scenarios/*.json']);
  expect(files.length).toBeGreaterThan(15);
  const loaded = await loadAll(files);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  const started = performance.now();
  const results = await runScenarios(loaded.scenarios, opts);
  const ms = Math.round(performance.now() - started);
  const failed = results.filter((r) => !r.ok);
  expect(failed, consoleReport(failed, ms)).toEqual([]);
  return ms;
}

describe('the scenario library (scenarios/*.yaml)', () => {
  let server: RunningServer | undefined;
  afterEach(() => server?.close());

  it('runs green embedded, every file on its own in-process sandbox, in under 10 s', async () => {
    // The sandbox loads tronweb and faker lazily, once per process (about 1 s of CPU): that is start-up, not the
    // library's run time, and on a loaded 2-core machine it alone would eat a tenth of the budget.
    await Promise.all([import('tronweb'), import('@faker-js/faker/locale/en')]);
    const ms = await runLibrary();
    console.log(`library ran embedded in ${ms} ms`);
    expect(ms).toBeLessThan(10_000);
  });

  it('runs green against one running server, every file on a fresh account (global BINs and all)', async () => {
    server = await startServer({
      config: { ...DEFAULT_CONFIG, port: 0, dbPath: ':memory:', adminToken: 'lib-admin', bootstrapAccount: false },
    });
    await runLibrary({ baseUrl: server.url, adminToken: 'lib-admin' });
  });
});
