import type { Migration } from './index.js';

// Readiness runs (docs/readiness.md): a run's window and the faults it armed, and the signed test deliveries it sent
// to the partner's receiver. Kept apart from events and webhook_deliveries, so a run never shows among the
// account's events or its webhook deliveries. Both tables carry account_id, so deleting a child sandbox purges them.
export const readiness: Migration = {
  version: 60,
  name: 'readiness runs',
  sql: `
-- Times are wall-clock milliseconds. ends_at_ms is the window's end (readiness/stop moves it to the stop).
-- The *_request_id columns: the request each armed fault fell on, NULL while it is armed. api_checks: the API-use
-- checks as JSON, written once when the window has ended, NULL while it is open.
CREATE TABLE readiness_runs (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  started_at_ms INTEGER NOT NULL,
  ends_at_ms INTEGER NOT NULL,
  receiver_url TEXT,
  drop_request_id TEXT,
  error_request_id TEXT,
  throttle_request_id TEXT,
  api_checks TEXT
);
CREATE INDEX readiness_runs_account ON readiness_runs(account_id, started_at_ms);
CREATE INDEX readiness_runs_open ON readiness_runs(account_id) WHERE api_checks IS NULL;

-- One row per test delivery; attempts is a JSON array of {atMs, status, latencyMs, error}, appended as they answer.
CREATE TABLE readiness_deliveries (
  id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL REFERENCES readiness_runs(id),
  account_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  check_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  attempts TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX readiness_deliveries_run ON readiness_deliveries(run_id, seq);
`,
};
