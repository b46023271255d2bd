import { Hono } from 'hono';
import { OK } from '../http/envelope.js';
import { resetAccount } from '../domain/reset.js';
import { runCommand } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { requiredAmount } from '../http/validate.js';
import type { ServerDeps } from '../server-deps.js';

export function resetRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>().post('/reset', async (c) => {
    const body = await readJsonObject(c);
    const balanceMicros = body.balance === undefined ? 0 : requiredAmount(body, 'balance');
    const accountId = c.get('account').id;
    runCommand(c, deps, (now) => resetAccount(deps, accountId, balanceMicros, now));
    // Requests a fault held go on after the reset, into the wiped world (their rules are gone with it).
    deps.heldRequests.release(accountId);
    return c.json({ ...OK });
  });
}
