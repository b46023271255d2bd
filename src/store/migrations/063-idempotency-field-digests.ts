import type { Migration } from './index.js';

// A key's first request, field by field, so that a 4211 can name the fields a retry changed (its Sandbox-Hint)
// without keeping the request's values: keyed digests of each top-level field (hashed after a key derived from the server secret, so a
// short value such as an amount cannot be guessed back from the database). Keys a release already stored keep every
// row, with no digests (their 4211 says only that the body differs).
export const idempotencyFieldDigests: Migration = {
  version: 63,
  name: 'idempotency field digests',
  sql: `
-- JSON {field: 16 hex digits of SHA-256(a key derived from the server secret, field and canonical value)}; NULL on keys
-- stored before.
ALTER TABLE idempotency_keys ADD COLUMN field_digests TEXT;
`,
};
