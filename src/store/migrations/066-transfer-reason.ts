import type { Migration } from './index.js';

// A transfer's column for what the movement is (`card.create`, `topup.settle`, ...) was called `kind`, the name a
// ledger account uses for what it holds: it is the transfer's reason, as the code has always called it. A rename
// keeps every row. The same text on both stores. Snapshots keep the field's old name (domain/snapshots/format.ts).
export const transferReason: Migration = {
  version: 66,
  name: 'transfer reason',
  sql: `
ALTER TABLE transfers RENAME COLUMN kind TO reason;
`,
};
