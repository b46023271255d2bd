import { OK } from '../http/envelope.js';
import { resetAccount } from '../domain/accounts/reset.js';
import { releaseHeldRequests } from '../domain/faults/shared-holds.js';
import { runCommand } from '../http/run-command.js';
import type { Handlers } from '../http/router.js';
import { microsOf } from '../http/amounts.js';
import type { ServerDeps } from '../http/server-deps.js';

export function resetHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/reset': async (c, body) => {
      const balanceMicros = body.balance === undefined ? 0 : microsOf(body.balance);
      const accountId = c.get('account').id;
      await runCommand(c, deps, (deps, now) => resetAccount(deps, accountId, balanceMicros, now));
      // Requests a fault held go on after the reset, into the wiped world (their rules are gone with it).
      await releaseHeldRequests(deps, accountId);
      return c.json({ ...OK });
    },
  };
}
