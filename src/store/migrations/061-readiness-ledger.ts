import type { Migration } from './index.js';

// A readiness run learns the partner's ledger (docs/readiness.md, ledger-agrees): the last readiness/ledger post of
// the run, judged against card/asset when it was posted. A column added to the runs a release already wrote: they
// keep every row, with no post (the check is not_observed for them).
export const readinessLedger: Migration = {
  version: 61,
  name: 'readiness ledger check',
  sql: `
-- JSON {requestId, atMs, cards, differences: [{cardId, posted: {availableAmount, frozenAmount}, actual: {...}}]},
-- NULL until the partner posts its ledger during the run's window.
ALTER TABLE readiness_runs ADD COLUMN ledger_check TEXT;
`,
};
