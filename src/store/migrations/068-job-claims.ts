import type { Migration } from './index.js';

// A job that waits on the network (a webhook attempt) is claimed, not deleted, while it runs: the instance that
// claimed it and until when its claim holds (a lease it renews while the attempt is on the wire). A claim that
// outlived its instance expires, and another instance takes the job over. The row goes once its outcome is recorded.
// Rows written by an earlier release have no claim. The partial index finds an account's claimed job (one at a time
// per account) without reading its other jobs: a traffic run parks thousands on one account. The columns' types
// differ as the two schemas' do (store/migrations/postgres-065-baseline.ts); the rest of the text is the same.
const claimIndex = 'CREATE INDEX jobs_account_claimed ON jobs(account_id) WHERE claimed_by IS NOT NULL;';

export const jobClaims: Migration = {
  version: 68,
  name: 'job claims',
  sql: `
ALTER TABLE jobs ADD COLUMN claimed_by TEXT;
ALTER TABLE jobs ADD COLUMN claim_until_ms INTEGER;
${claimIndex}
`,
};

export const jobClaimsPostgres: Migration = {
  version: 68,
  name: 'job claims',
  sql: `
ALTER TABLE jobs ADD COLUMN claimed_by TEXT COLLATE "C";
ALTER TABLE jobs ADD COLUMN claim_until_ms BIGINT;
${claimIndex}
`,
};
