import type { Migration } from './index.js';

// A chain txId names a deposit within one account: with a global key, tenant B's chain/transfer
// with a txId made tenant A's same txId a 400, a way to probe or squat another tenant's ids. SQLite cannot change
// a primary key in place, so the table is rebuilt with the key (account_id, tx_id), rows and indexes kept.
export const chainTenantTxId: Migration = {
  version: 31,
  name: 'chain deposits keyed by account and txId',
  sql: `
CREATE TABLE chain_deposits_by_account (
  account_id TEXT NOT NULL,
  tx_id TEXT NOT NULL,
  address TEXT NOT NULL,
  from_address TEXT NOT NULL,
  amount_micros INTEGER NOT NULL CHECK (amount_micros > 0),
  initial_confirmations INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  credits_at_ms INTEGER NOT NULL,
  credited_at_ms INTEGER,
  seq INTEGER NOT NULL,
  PRIMARY KEY (account_id, tx_id)
);
INSERT INTO chain_deposits_by_account (account_id, tx_id, address, from_address, amount_micros,
  initial_confirmations, created_at_ms, credits_at_ms, credited_at_ms, seq)
  SELECT account_id, tx_id, address, from_address, amount_micros, initial_confirmations, created_at_ms,
    credits_at_ms, credited_at_ms, seq FROM chain_deposits;
DROP TABLE chain_deposits;
ALTER TABLE chain_deposits_by_account RENAME TO chain_deposits;
CREATE INDEX chain_deposits_account ON chain_deposits(account_id, seq);
CREATE INDEX chain_deposits_pending ON chain_deposits(account_id) WHERE credited_at_ms IS NULL;
`,
};
