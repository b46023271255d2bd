import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints every skipped test's reason after the run summary: the default reporter only counts skips, and a skip whose
 * reason nobody reads hides a test that no longer runs. One line per file and reason.
 */
export class SkipReasons implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines = new Map<string, number>();
    for (const mod of testModules) {
      for (const test of mod.children.allTests('skipped')) {
        const result = test.result();
        const note = result.state === 'skipped' ? result.note : undefined;
        const line = `${mod.relativeModuleId}: ${note ?? 'no reason given (or a hook before it failed)'}`;
        lines.set(line, (lines.get(line) ?? 0) + 1);
      }
    }
    if (!lines.size) return;
    console.log('\n Skipped, and why:');
    for (const [line, count] of lines) console.log(`   ${count} x ${line}`);
  }
}
