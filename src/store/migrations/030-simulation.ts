import type { Migration } from './index.js';

// The world around the partner's integration: chain deposits, 3DS challenges and injected faults, all per account.
export const simulation: Migration = {
  version: 30,
  name: 'simulation',
  sql: `
-- TRC20 transfers to an account's deposit address. Confirmations are derived from the account clock
-- (initial + one per 3 s); credited_at_ms is set when the 19th confirmation credits the wallet.
CREATE TABLE chain_deposits (
  tx_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  address TEXT NOT NULL,
  from_address TEXT NOT NULL,
  amount_micros INTEGER NOT NULL CHECK (amount_micros > 0),
  initial_confirmations INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  credits_at_ms INTEGER NOT NULL,
  credited_at_ms INTEGER,
  seq INTEGER NOT NULL
);
CREATE INDEX chain_deposits_account ON chain_deposits(account_id, seq);
CREATE INDEX chain_deposits_pending ON chain_deposits(account_id) WHERE credited_at_ms IS NULL;

-- 3DS challenges. The OTP is never stored: it is an HMAC of the server secret and the challenge id.
CREATE TABLE threeds_challenges (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  card_id TEXT NOT NULL,
  event_id TEXT NOT NULL UNIQUE,
  created_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  approved_at_ms INTEGER
);
CREATE INDEX threeds_challenges_account ON threeds_challenges(account_id);

-- Injected faults, matched by full request path in insertion order; remaining counts down to 0.
CREATE TABLE faults (
  id INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL,
  path TEXT NOT NULL,
  remaining INTEGER NOT NULL,
  latency_ms INTEGER NOT NULL DEFAULT 0,
  respond_status INTEGER,
  respond_code INTEGER,
  respond_message TEXT,
  drop_response INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX faults_account_path ON faults(account_id, path, id);
`,
};
