import type { Migration } from './index.js';

// The requests an injected fault holds, one row each while held: which instance holds it, for which account. Every
// instance on the database sees them, so faults/held counts and faults/release lets go of the requests held on every
// instance (domain/faults/shared-holds.ts); the instance holding a request keeps it in memory as before. The columns'
// types differ as the two schemas' do (store/migrations/postgres-065-baseline.ts); the rest is the same.
const index = 'CREATE INDEX held_requests_account ON held_requests(account_id);';

export const heldRequests: Migration = {
  version: 69,
  name: 'held requests',
  sql: `
CREATE TABLE held_requests (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  instance TEXT NOT NULL,
  held_at_ms INTEGER NOT NULL
);
${index}
`,
};

export const heldRequestsPostgres: Migration = {
  version: 69,
  name: 'held requests',
  sql: `
CREATE TABLE held_requests (
  id TEXT COLLATE "C" PRIMARY KEY,
  account_id TEXT COLLATE "C" NOT NULL,
  instance TEXT COLLATE "C" NOT NULL,
  held_at_ms BIGINT NOT NULL
);
${index}
`,
};
