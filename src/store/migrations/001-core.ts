import type { Migration } from './index.js';

// Money columns end in _micros (integer USDT/USD micro-units); rates end in _ppm (parts per million);
// times end in _ms (account clock, Unix milliseconds).
export const core: Migration = {
  version: 1,
  name: 'core',
  sql: `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE bins (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  bin TEXT NOT NULL,
  card_network TEXT NOT NULL,
  fx_rate_ppm INTEGER NOT NULL,
  open_fee_micros INTEGER NOT NULL,
  atm_rate_ppm INTEGER NOT NULL,
  spend_daily_micros INTEGER NOT NULL,
  minimal_deposit_micros INTEGER NOT NULL,
  enabled INTEGER NOT NULL,
  inventory INTEGER NOT NULL,
  provisioning INTEGER NOT NULL DEFAULT 0,
  created_seq INTEGER NOT NULL
);

CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  deposit_fee_rate_ppm INTEGER NOT NULL,
  require_idempotency_key INTEGER NOT NULL DEFAULT 0,
  deposit_address_mode TEXT NOT NULL CHECK (deposit_address_mode IN ('auto', 'none', 'fixed')),
  deposit_address TEXT,
  default_bin_id TEXT NOT NULL REFERENCES bins(id),
  clock_offset_ms INTEGER NOT NULL DEFAULT 0,
  clock_frozen_at_ms INTEGER,
  created_at_ms INTEGER NOT NULL
);
CREATE UNIQUE INDEX accounts_deposit_address ON accounts(deposit_address) WHERE deposit_address IS NOT NULL;

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  key_hash TEXT NOT NULL UNIQUE,
  display_prefix TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  revoked_at_ms INTEGER
);
CREATE INDEX api_keys_account ON api_keys(account_id);

-- This account's view of a BIN's inventory (sandbox/v1/inventory); absent means the BIN's own.
CREATE TABLE account_bin_inventory (
  account_id TEXT NOT NULL REFERENCES accounts(id),
  bin_id TEXT NOT NULL REFERENCES bins(id),
  available INTEGER NOT NULL,
  provisioning INTEGER NOT NULL,
  PRIMARY KEY (account_id, bin_id)
);

-- Double-entry ledger: balance = credits - debits, kept as a counter beside the append-only transfers.
CREATE TABLE ledger_accounts (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  balance_micros INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX ledger_accounts_account ON ledger_accounts(account_id, kind);

CREATE TABLE transfers (
  id INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL,
  debit_id TEXT NOT NULL REFERENCES ledger_accounts(id),
  credit_id TEXT NOT NULL REFERENCES ledger_accounts(id),
  amount_micros INTEGER NOT NULL CHECK (amount_micros > 0),
  kind TEXT NOT NULL,
  ref TEXT,
  created_at_ms INTEGER NOT NULL
);
CREATE INDEX transfers_account ON transfers(account_id, id);

CREATE TABLE cards (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id),
  bin_id TEXT NOT NULL REFERENCES bins(id),
  alias TEXT,
  status TEXT NOT NULL CHECK (status IN ('ACTIVE', 'FROZEN', 'CANCELLING', 'CANCELLED')),
  last4 TEXT NOT NULL,
  open_fee_micros INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  seq INTEGER NOT NULL
);
CREATE INDEX cards_account ON cards(account_id, seq);
CREATE INDEX cards_account_status ON cards(account_id, status, seq);

CREATE TABLE topups (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  card_id TEXT NOT NULL REFERENCES cards(id),
  amount_micros INTEGER NOT NULL,
  credit_micros INTEGER NOT NULL,
  fee_micros INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  settles_at_ms INTEGER NOT NULL,
  settled_at_ms INTEGER
);
CREATE INDEX topups_card_pending ON topups(card_id) WHERE settled_at_ms IS NULL;

-- Card transactions behind bill/list. acct_seq, card_seq and bin_seq are dense per scope (1..n in creation
-- order), so any page of any listing is one index range, whatever its number.
CREATE TABLE transactions (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  card_id TEXT NOT NULL REFERENCES cards(id),
  bin_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('SPEND', 'REFUND')),
  status TEXT NOT NULL CHECK (status IN ('PENDING', 'CLEARED', 'DECLINED', 'CANCELLED', 'REFUND')),
  bill_amount_micros INTEGER NOT NULL,
  bill_currency TEXT NOT NULL DEFAULT 'USD',
  transaction_amount_micros INTEGER NOT NULL,
  transaction_currency TEXT NOT NULL,
  hold_micros INTEGER NOT NULL DEFAULT 0,
  cleared_micros INTEGER NOT NULL DEFAULT 0,
  refunded_micros INTEGER NOT NULL DEFAULT 0,
  merchant_name TEXT NOT NULL,
  merchant_country TEXT NOT NULL,
  mcc_category TEXT NOT NULL,
  decline_reason TEXT,
  parent_id TEXT REFERENCES transactions(id),
  created_at_ms INTEGER NOT NULL,
  settled_at_ms INTEGER,
  acct_seq INTEGER NOT NULL,
  card_seq INTEGER NOT NULL,
  bin_seq INTEGER NOT NULL
);
CREATE UNIQUE INDEX transactions_acct_seq ON transactions(account_id, acct_seq);
CREATE UNIQUE INDEX transactions_card_seq ON transactions(card_id, card_seq);
CREATE UNIQUE INDEX transactions_bin_seq ON transactions(account_id, bin_id, bin_seq);
CREATE INDEX transactions_card_status ON transactions(card_id, status);

CREATE TABLE seq_counters (scope TEXT PRIMARY KEY, value INTEGER NOT NULL);

-- The event outbox: written in the same transaction as the change that caused it.
CREATE TABLE events (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  type TEXT NOT NULL,
  created_s INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX events_account ON events(account_id, seq);
CREATE INDEX events_account_type ON events(account_id, type, seq);

-- Timers on the account clock.
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  account_id TEXT NOT NULL,
  due_at_ms INTEGER NOT NULL,
  kind TEXT NOT NULL,
  ref TEXT NOT NULL
);
CREATE INDEX jobs_account_due ON jobs(account_id, due_at_ms, id);
CREATE INDEX jobs_due ON jobs(due_at_ms);
`,
};
