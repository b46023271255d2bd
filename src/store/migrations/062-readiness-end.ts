import type { Migration } from './index.js';

// How a readiness run's window ended, and whether it asked to run its whole window (docs/readiness.md): a run ends as
// soon as every check is decided unless it asked for its full window. Columns added to the runs a release already
// wrote: they keep every row (ended_by stays NULL for them: they predate it; full_window 0, as they ran).
export const readinessEnd: Migration = {
  version: 62,
  name: 'readiness run end',
  sql: `
-- 1: the run runs its whole window (or until readiness/stop), even once every check is decided.
ALTER TABLE readiness_runs ADD COLUMN full_window INTEGER NOT NULL DEFAULT 0;
-- 'window' (its end came), 'stop' (readiness/stop), 'decided' (every check was); NULL while it runs.
ALTER TABLE readiness_runs ADD COLUMN ended_by TEXT;
`,
};
