import type { Migration } from './index.js';

// What a request log record tells beyond the answer (docs/developer-tools.md): what an injected fault did to the
// request (held it, delayed it, answered for it, dropped its answer), the Sandbox-Hint the answer carried, and
// whether the console made the call (its Requests page hides those unless asked). Columns added to the records a
// release already wrote: they keep every row (no fault, no hint, made by the API, as they were).
export const requestLogFaultHintSource: Migration = {
  version: 52,
  name: 'request log fault, hint and source',
  sql: `
-- JSON {by, wait: {kind, ms, ended} | null, answer}: what an injected fault did; NULL when none touched the request.
ALTER TABLE request_log ADD COLUMN fault TEXT;
-- The answer's Sandbox-Hint header, redacted like the rest of the record; NULL when it had none.
ALTER TABLE request_log ADD COLUMN hint TEXT;
-- 'console' for the calls the console made for a signed-in page, 'api' for every other.
ALTER TABLE request_log ADD COLUMN source TEXT NOT NULL DEFAULT 'api';
`,
};
