import type { Migration } from './index.js';

// Developer tools (docs/design.md section 12): child sandboxes and the request log.
export const developerTools: Migration = {
  version: 50,
  name: 'developer-tools',
  sql: `
-- A child sandbox is an ordinary account with a parent and a wall-clock expiry (both NULL for a top-level account).
ALTER TABLE accounts ADD COLUMN parent_account_id TEXT REFERENCES accounts(id);
ALTER TABLE accounts ADD COLUMN expires_at_ms INTEGER;
CREATE INDEX accounts_parent ON accounts(parent_account_id) WHERE parent_account_id IS NOT NULL;
CREATE INDEX accounts_expiry ON accounts(expires_at_ms) WHERE expires_at_ms IS NOT NULL;

-- The request log: the last 1,000 requests per account, already redacted. at_ms is wall time; detail holds the
-- request and response headers and bodies as JSON.
CREATE TABLE request_log (
  seq INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL,
  request_id TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  method TEXT NOT NULL,
  path TEXT NOT NULL,
  status INTEGER NOT NULL,
  code INTEGER,
  latency_ms REAL NOT NULL,
  key_id TEXT,
  idempotency_key TEXT,
  replayed INTEGER NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX request_log_account ON request_log(account_id, seq);
CREATE INDEX request_log_request_id ON request_log(account_id, request_id, seq);
`,
};
