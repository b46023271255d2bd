import type { ServerDeps } from '../http/server-deps.js';
import { inFlightExemptPaths } from '../contracts/files.js';
import { invalidField } from '../domain/kernel/errors.js';
import { clearFaults, setFaults, type FaultRule } from '../domain/faults/faults.js';
import { heldRequestsOf, releaseHeldRequests } from '../domain/faults/shared-holds.js';
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
 * Paths a rule may not hold or delay: the operations outside the in-flight budget (the clock, reset, what releases
 * held requests, the operator API). The budget never counts them, so requests held there were held beyond it (44 held
 * while the tenant's usage said 0); and what releases held requests must never be held itself.
 */
const NEVER_HELD = inFlightExemptPaths().map(
  (template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+').replace(/\//g, '\\/')}$`),
);

/** Refuses (400 naming the rule) a hold or a latency on a path outside the in-flight budget. */
function assertHoldable(rules: readonly FaultRule[]): void {
  rules.forEach((r, i) => {
    if ((r.hold || r.latencyMs > 0) && NEVER_HELD.some((p) => p.test(r.path))) {
      throw invalidField(
        `rules[${i}]: ${r.path} is outside the in-flight budget, so a rule may not hold it nor add latencyMs to it ` +
          '(respond and dropResponse may)',
      );
    }
  });
}

/**
 * faults (replaces this account's rules), faults/held (how many requests they hold now), faults/release (lets the
 * requests they hold go on) and faults/clear (removes the rules and lets what they hold go on).
 */
export function faultHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/faults': async (c, body) => {
      const rules = body.rules.map(toRule);
      assertHoldable(rules);
      const accountId = c.get('account').id;
      return c.json({ ...OK, rules: await runCommand(c, deps, (deps) => setFaults(deps, accountId, rules)) });
    },
    // Both count the requests held on every instance of the deployment (domain/faults/shared-holds.ts).
    'POST /sandbox/v1/faults/release': async (c) => {
      return c.json({ ...OK, released: await releaseHeldRequests(deps, c.get('account').id) });
    },
    // What a test polls to know a request is held before it sends the retry that must meet it: decided by state.
    'POST /sandbox/v1/faults/held': async (c) =>
      c.json({ ...OK, held: await heldRequestsOf(deps, c.get('account').id) }),
    'POST /sandbox/v1/faults/clear': async (c) => {
      const accountId = c.get('account').id;
      await runCommand(c, deps, (deps) => clearFaults(deps.db, accountId));
      await releaseHeldRequests(deps, accountId);
      return c.json({ ...OK });
    },
  };
}
