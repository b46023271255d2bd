import type { Migration } from './index.js';

// When the client that got a readiness run's injected 429 closed the connection it came on (docs/readiness.md,
// waits-retry-after): a next request after that is no client waiting out Retry-After, and is judged not_observed. A
// column added to the runs a release already wrote: they keep every row (NULL: no such close was seen).
export const readinessThrottleGone: Migration = {
  version: 64,
  name: 'readiness throttled client gone',
  sql: `
-- Wall-clock Unix ms at which the client closed the connection that carried the run's 429; NULL while it has not.
ALTER TABLE readiness_runs ADD COLUMN throttle_gone_ms INTEGER;
`,
};
