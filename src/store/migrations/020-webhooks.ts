import type { Migration } from './index.js';

export const webhooks: Migration = {
  version: 20,
  name: 'webhooks',
  sql: `
-- One webhook endpoint per account. The signing secret is stored sealed (AES-GCM under the server secret), never
-- in clear; secret_prefix is what reads may show.
CREATE TABLE webhook_configs (
  account_id TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  deliver_3ds_code INTEGER NOT NULL,
  secret_sealed TEXT NOT NULL,
  secret_prefix TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
);

-- One row per (event, endpoint config at the time): the state of its delivery. A pending row always has a
-- 'webhook.attempt' job due at next_attempt_at_ms, except while that attempt is on the wire; start-up restores the
-- job of any pending row that lost it to a crash.
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL,
  event_id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'cancelled', 'disabled')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at_ms INTEGER,
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_account ON webhook_deliveries(account_id, id);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries(state) WHERE state = 'pending';

-- Every attempt, for the delivery log: account time, wall time (the signature's t), outcome.
CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL,
  event_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  redelivery INTEGER NOT NULL,
  url TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  signed_at_s INTEGER NOT NULL,
  status_code INTEGER,
  latency_ms INTEGER NOT NULL,
  error TEXT,
  next_retry_at_ms INTEGER
);
CREATE INDEX webhook_attempts_account ON webhook_attempts(account_id, id);
CREATE INDEX webhook_attempts_event ON webhook_attempts(account_id, event_id, id);
`,
};
