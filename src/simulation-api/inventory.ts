import { setInventory } from '../domain/cards/bins.js';
import type { ServerDeps } from '../http/server-deps.js';
import { OK } from '../http/envelope.js';
import { runCommand } from '../http/run-command.js';
import type { Handlers } from '../http/router.js';

/** inventory: this account's view of a BIN's inventory (4009 at zero, 4010 while provisioning). */
export function inventoryHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/inventory': async (c, body) => {
      const binId = body.binId;
      const available = body.available;
      const provisioning = body.provisioning;
      const accountId = c.get('account').id;
      const next = runCommand(c, deps, () => setInventory(deps, accountId, binId, { available, provisioning }));
      return c.json({ ...OK, binId, ...next });
    },
  };
}
