import type { ServerDeps } from '../http/server-deps.js';
import { clearFaults, setFaults, type FaultRule } from '../domain/faults/faults.js';
import { OK } from '../http/envelope.js';
import { runCommand } from '../http/run-command.js';
import type { Handlers } from '../http/router.js';
import type { RequestBody } from '../http/request-body.js';

type RuleBody = RequestBody<'POST /sandbox/v1/faults'>['rules'][number];

/** One rule of a body contracts/sandbox/faults.request.json has checked (shape, bounds and which rules combine). */
function toRule(raw: RuleBody): FaultRule {
  const { respond } = raw;
  return {
    path: raw.path,
    // One use by default: the typical script fails a call once and proves the retry.
    count: raw.count ?? 1,
    latencyMs: raw.latencyMs ?? 0,
    dropResponse: raw.dropResponse ?? false,
    hold: raw.hold ?? false,
    ...(respond && {
      respond: {
        httpStatus: respond.httpStatus!,
        code: respond.code!,
        message: respond.message,
      },
    }),
  };
}

/**
 * faults (replaces this account's rules), faults/held (how many requests they hold now), faults/release (lets the
 * requests they hold go on) and faults/clear (removes the rules and lets what they hold go on).
 */
export function faultHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/faults': async (c, body) => {
      const rules = body.rules.map(toRule);
      const accountId = c.get('account').id;
      return c.json({ ...OK, rules: runCommand(c, deps, (deps) => setFaults(deps, accountId, rules)) });
    },
    'POST /sandbox/v1/faults/release': async (c) => {
      return c.json({ ...OK, released: deps.heldRequests.release(c.get('account').id) });
    },
    // What a test polls to know a request is held before it sends the retry that must meet it: decided by state.
    'POST /sandbox/v1/faults/held': async (c) =>
      c.json({ ...OK, held: deps.heldRequests.heldCount(c.get('account').id) }),
    'POST /sandbox/v1/faults/clear': async (c) => {
      const accountId = c.get('account').id;
      await runCommand(c, deps, (deps) => clearFaults(deps.db, accountId));
      deps.heldRequests.release(accountId);
      return c.json({ ...OK });
    },
  };
}
