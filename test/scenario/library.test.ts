import { describe, expect, it } from 'vitest';
import { expandFiles } from '../../src/scenario/glob.js';
import { consoleReport } from '../../src/scenario/report.js';
import { loadAll, runScenarios } from '../../src/scenario/runner.js';

describe('the scenario library (scenarios/*.yaml)', () => {
  it('runs green embedded, every file on its own in-process sandbox, in under 10 s', async () => {
    const files = await expandFiles(['scenarios/*.yaml', 'scenarios/*.json']);
    expect(files.length).toBeGreaterThan(0);
    const loaded = await loadAll(files);
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
    const started = performance.now();
    const results = await runScenarios(loaded.scenarios);
    const ms = performance.now() - started;
    const failed = results.filter((r) => !r.ok);
    expect(failed, consoleReport(failed, Math.round(ms))).toEqual([]);
    expect(ms).toBeLessThan(10_000);
  });
});
