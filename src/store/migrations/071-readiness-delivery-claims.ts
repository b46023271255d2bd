import type { Migration } from './index.js';

// A readiness run's test deliveries outlive the instance that started them: each row says whether attempts are still
// owed (`pending` 1; NULL once done, and for rows written before) and, while they are, which instance sends them and
// until when its claim holds (a lease it renews while its attempts are on the wire, as a webhook attempt's, 068). A
// claim that outlived its instance, or one handed back by an instance that stopped (claim_until_ms 0), is taken over
// by the next instance to look. The partial index finds those among the few deliveries still owed, never the rest.
// The columns' types differ as the two schemas' do; the rest of the text is the same.
const pendingIndex =
  'CREATE INDEX readiness_deliveries_pending ON readiness_deliveries(claim_until_ms) WHERE pending = 1;';

export const readinessDeliveryClaims: Migration = {
  version: 71,
  name: 'readiness delivery claims',
  sql: `
ALTER TABLE readiness_deliveries ADD COLUMN pending INTEGER;
ALTER TABLE readiness_deliveries ADD COLUMN claimed_by TEXT;
ALTER TABLE readiness_deliveries ADD COLUMN claim_until_ms INTEGER;
${pendingIndex}
`,
};

export const readinessDeliveryClaimsPostgres: Migration = {
  version: 71,
  name: 'readiness delivery claims',
  sql: `
ALTER TABLE readiness_deliveries ADD COLUMN pending BIGINT;
ALTER TABLE readiness_deliveries ADD COLUMN claimed_by TEXT COLLATE "C";
ALTER TABLE readiness_deliveries ADD COLUMN claim_until_ms BIGINT;
${pendingIndex}
`,
};
