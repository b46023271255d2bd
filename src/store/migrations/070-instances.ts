import type { Migration } from './index.js';

// The instances serving the database, each with the last time it said it was alive (a heartbeat on the wall clock).
// A tenant's budgets are shared among the live ones (domain/kernel/deployment.ts): each enforces its share, so a
// tenant's requests spread over the deployment get what one instance grants, and no request pays for a shared
// counter. Not a tenant's table: it holds no account's rows. The columns' types differ as the two schemas' do.
export const instances: Migration = {
  version: 70,
  name: 'instances',
  sql: `
CREATE TABLE instances (
  id TEXT PRIMARY KEY,
  started_at_ms INTEGER NOT NULL,
  seen_at_ms INTEGER NOT NULL
);
`,
};

export const instancesPostgres: Migration = {
  version: 70,
  name: 'instances',
  sql: `
CREATE TABLE instances (
  id TEXT COLLATE "C" PRIMARY KEY,
  started_at_ms BIGINT NOT NULL,
  seen_at_ms BIGINT NOT NULL
);
`,
};
