import type { Migration } from './index.js';

export const idempotency: Migration = {
  version: 10,
  name: 'idempotency',
  sql: `
-- One row per (account, key). state 'in_flight' exists only while a request waits between reserving its key and
-- executing (an injected latency); start-up deletes any left by a crash.
CREATE TABLE idempotency_keys (
  account_id TEXT NOT NULL,
  key TEXT NOT NULL,
  endpoint TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('in_flight', 'done')),
  status INTEGER,
  body TEXT,
  headers TEXT,
  created_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys(account_id, expires_at_ms);
`,
};
