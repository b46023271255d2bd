import type { Migration } from './index.js';

// The request log's storage is bounded per tenant (an account and its child sandboxes) in bytes: each row knows its
// tenant and its size, so the tenant's total is one indexed sum and its oldest rows go first.
export const requestLogTenant: Migration = {
  version: 51,
  name: 'request-log-tenant',
  sql: `
ALTER TABLE request_log ADD COLUMN tenant_id TEXT;
ALTER TABLE request_log ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
UPDATE request_log SET
  tenant_id = (SELECT COALESCE(a.parent_account_id, a.id) FROM accounts a WHERE a.id = request_log.account_id),
  bytes = length(CAST(detail AS BLOB)) + length(CAST(path AS BLOB)) + length(CAST(request_id AS BLOB))
    + COALESCE(length(CAST(idempotency_key AS BLOB)), 0);
UPDATE request_log SET tenant_id = account_id WHERE tenant_id IS NULL;
CREATE INDEX request_log_tenant ON request_log(tenant_id, seq, bytes);
`,
};
