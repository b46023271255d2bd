import type { Migration } from './index.js';

// Traffic runs (docs/design.md section 15): a seeded stream of card network messages on an account's cards. The
// messages themselves are jobs, made a day at a time when the account clock reaches that day; a run keeps only its
// parameters here, so a request never makes the server keep more than one day's messages per run. The table carries
// account_id, so deleting a child sandbox purges it.
export const traffic: Migration = {
  version: 32,
  name: 'traffic runs',
  sql: `
-- cards: JSON [{cardId, typicalMicros}] in the run's order; mix: JSON weights by story kind; scheduled: JSON counts by
-- message kind, as traffic/start answered them. Times are the account clock's. stopped_at_ms is NULL until stopped.
CREATE TABLE traffic_runs (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  seed INTEGER NOT NULL,
  days INTEGER NOT NULL,
  per_card_per_day INTEGER NOT NULL,
  mix TEXT NOT NULL,
  cards TEXT NOT NULL,
  scheduled TEXT NOT NULL,
  stories INTEGER NOT NULL,
  started_at_ms INTEGER NOT NULL,
  stopped_at_ms INTEGER
);
CREATE INDEX traffic_runs_account ON traffic_runs(account_id);
`,
};
