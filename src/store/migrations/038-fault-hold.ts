import type { Migration } from './index.js';

// A fault rule that holds its requests until the account releases them (sandbox/v1/faults/release).
export const faultHold: Migration = {
  version: 38,
  name: 'fault hold',
  sql: `
ALTER TABLE faults ADD COLUMN hold INTEGER NOT NULL DEFAULT 0;
`,
};
