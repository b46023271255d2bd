import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { expandFiles } from '../../src/scenario/glob.js';
import { consoleReport } from '../../src/scenario/report.js';
import { embeddedTarget } from '../../src/cli/embedded-target.js';
import { loadAll, runScenarios, type RunnerOptions } from '../../src/scenario/runner.js';
import { startServer, type RunningServer } from '../../src/server.js';

async function runLibrary(opts: RunnerOptions = {}) {
  const files = await expandFiles(['scenarios/*.yaml', 'scenarios/*.json']);
  expect(files.length).toBeGreaterThan(15);
  const loaded = await loadAll(files);
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
  const started = performance.now();
  const results = await runScenarios(loaded.scenarios, { embedded: () => embeddedTarget(), ...opts });
  const failed = results.filter((r) => !r.ok);
  // The duration only labels the failure report; how fast the library runs is not asserted (a busy machine is slow).
  expect(failed, consoleReport(failed, Math.round(performance.now() - started))).toEqual([]);
}

describe('the scenario library (scenarios/*.yaml)', () => {
  let server: RunningServer | undefined;
  afterEach(() => server?.close());

  it('runs green embedded, every file on its own in-process sandbox', async () => {
    await runLibrary();
  });

  it('runs green against one running server, every file on a fresh account (global BINs and all)', async () => {
    server = await startServer({
      config: { ...DEFAULT_CONFIG, port: 0, dbPath: ':memory:', adminToken: 'lib-admin', bootstrapAccount: false },
    });
    await runLibrary({ baseUrl: server.url, adminToken: 'lib-admin' });
  });
});
