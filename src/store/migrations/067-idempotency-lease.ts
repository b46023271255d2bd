import type { Migration } from './index.js';

// A key in flight names the instance holding it and how long its lease runs (wall-clock Unix milliseconds). Several
// instances on one PostgreSQL database see each other's keys: a key whose lease has run out belongs to an instance
// that died (a living holder renews its lease while it waits), and any instance may take it. Rows written before
// have neither: a key in flight without a lease is free, as start-up released such keys before. The columns' types
// differ by store only as their baselines do (INTEGER/TEXT on SQLite, BIGINT/TEXT COLLATE "C" on PostgreSQL).
export const idempotencyLease: Migration = {
  version: 67,
  name: 'idempotency lease',
  sql: `
ALTER TABLE idempotency_keys ADD COLUMN held_by TEXT;
ALTER TABLE idempotency_keys ADD COLUMN lease_until_ms INTEGER;
`,
};

export const idempotencyLeasePostgres: Migration = {
  ...idempotencyLease,
  sql: `
ALTER TABLE idempotency_keys ADD COLUMN held_by TEXT COLLATE "C", ADD COLUMN lease_until_ms BIGINT;
`,
};
