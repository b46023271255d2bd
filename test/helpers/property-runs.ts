// How many cases a property test tries: its own number times PROPERTY_RUNS_FACTOR (1 unless set), so a longer hunt
// for a rare counterexample needs no edit of the file: `PROPERTY_RUNS_FACTOR=30 npx --no-install vitest run <file>`. A test's
// time limit grows with it (a limit only bounds a hung run; it never judges speed).

const FACTOR = Number(process.env.PROPERTY_RUNS_FACTOR ?? 1);
if (!(FACTOR > 0))
  throw new Error(`PROPERTY_RUNS_FACTOR must be a positive number, not ${process.env.PROPERTY_RUNS_FACTOR}`);

// On PostgreSQL every step of a property is a few round trips to a real server, and `npm test` runs the properties
// on both stores within its 10 minutes: there they try a quarter of their cases unless PROPERTY_RUNS_FACTOR is set
// (`npm run test:postgres` runs them whole).
const STORE_FACTOR = process.env.TEST_STORE === 'postgres' && process.env.PROPERTY_RUNS_FACTOR === undefined ? 0.25 : 1;

/**
 * A property's number of runs: `base` (its own, or its environment knob's) times PROPERTY_RUNS_FACTOR (on
 * PostgreSQL, unless that is set, a quarter).
 */
export function propertyRuns(base: number): number {
  return Math.max(1, Math.round(base * FACTOR * STORE_FACTOR));
}

/** A property test's time limit, `baseMs` times PROPERTY_RUNS_FACTOR when that is above 1. */
export function propertyTimeoutMs(baseMs: number): number {
  return Math.round(baseMs * Math.max(1, FACTOR));
}
