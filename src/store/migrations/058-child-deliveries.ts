import type { Migration } from './index.js';

// A child sandbox made to deliver nothing (sandboxes/create `deliveries: false`): no webhook attempt, no readiness
// delivery, whatever its webhook configuration. `card-sandbox replay` makes its children so.
export const childDeliveries: Migration = {
  version: 58,
  name: 'child deliveries',
  sql: `
ALTER TABLE accounts ADD COLUMN deliveries INTEGER NOT NULL DEFAULT 1;
`,
};
