import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every test removes what it writes to the temp folder. The run gets a temp folder of its own (TMPDIR, which the test
// workers and every process a test starts inherit), so the machine's other users cannot blur the comparison: it is
// empty before the run and must be empty after it. What is left is named, and the run fails.

let dir: string | undefined;
let previous: string | undefined;

/** Set while the run's temp folder is in place: each project of the run runs this setup, the first one makes it. */
const MARK = 'CARD_SANDBOX_TEST_TEMP';

export function setup(): void {
  if (process.env[MARK]) return;
  process.env[MARK] = '1';
  previous = process.env.TMPDIR;
  dir = mkdtempSync(join(tmpdir(), 'card-sandbox-tests-'));
  process.env.TMPDIR = dir;
}

export function teardown(): void {
  if (dir === undefined) return;
  delete process.env[MARK];
  const left = readdirSync(dir);
  rmSync(dir, { recursive: true, force: true });
  if (previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previous;
  if (left.length > 0) {
    // A throw here is only printed by vitest ("error during close"): the exit status is what fails `npm test`.
    process.exitCode = 1;
    throw new Error(
      `the tests left ${left.length} entries in the temp folder (each test removes what it writes): ${left.sort().join(', ')}`,
    );
  }
}
