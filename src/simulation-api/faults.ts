import { Hono } from 'hono';
import type { ServerDeps } from '../server-deps.js';
import { clearFaults, listFaults, setFaults, type FaultRule } from '../domain/faults.js';
import { OK } from '../http/envelope.js';
import { runCommand } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { optionalBoolean, optionalInteger, optionalString, requiredString, type Body } from '../http/validate.js';

/** One rule of a body contracts/sandbox/faults.request.json has checked (shape, bounds and which rules combine). */
function toRule(raw: Body): FaultRule {
  const respond = raw.respond as Body | undefined;
  return {
    path: requiredString(raw, 'path'),
    // One use by default: the typical script fails a call once and proves the retry.
    count: optionalInteger(raw, 'count') ?? 1,
    latencyMs: optionalInteger(raw, 'latencyMs') ?? 0,
    dropResponse: optionalBoolean(raw, 'dropResponse') ?? false,
    hold: optionalBoolean(raw, 'hold') ?? false,
    ...(respond && {
      respond: {
        httpStatus: optionalInteger(respond, 'httpStatus')!,
        code: optionalInteger(respond, 'code')!,
        message: optionalString(respond, 'message'),
      },
    }),
  };
}

/**
 * faults (replaces this account's rules), faults/release (lets the requests it holds go on) and faults/clear (removes
 * the rules and releases what they hold).
 */
export function faultRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>()
    .post('/faults', async (c) => {
      const rules = ((await readJsonObject(c)).rules as Body[]).map(toRule);
      const accountId = c.get('account').id;
      runCommand(c, deps, () => setFaults(deps.db, accountId, rules));
      return c.json({ ...OK, rules: listFaults(deps.db, accountId) });
    })
    .post('/faults/release', async (c) => {
      await readJsonObject(c);
      return c.json({ ...OK, released: deps.heldRequests.release(c.get('account').id) });
    })
    .post('/faults/clear', async (c) => {
      await readJsonObject(c);
      const accountId = c.get('account').id;
      runCommand(c, deps, () => clearFaults(deps.db, accountId));
      deps.heldRequests.release(accountId);
      return c.json({ ...OK });
    });
}
