import { Hono } from 'hono';
import { getBin, inventoryFor, setAccountInventory } from '../domain/bins.js';
import type { ServerDeps } from '../server-deps.js';
import { OK } from '../http/envelope.js';
import { runCommand } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { optionalBoolean, optionalInteger, requiredString } from '../http/validate.js';

/** inventory: this account's view of a BIN's inventory (4009 at zero, 4010 while provisioning). */
export function inventoryRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>().post('/inventory', async (c) => {
    const body = await readJsonObject(c);
    const binId = requiredString(body, 'binId');
    const available = optionalInteger(body, 'available');
    const provisioning = optionalBoolean(body, 'provisioning');
    const accountId = c.get('account').id;
    const next = runCommand(c, deps, () => {
      const current = inventoryFor(deps.db, accountId, getBin(deps.db, binId));
      const next = { available: available ?? current.available, provisioning: provisioning ?? current.provisioning };
      setAccountInventory(deps.db, accountId, binId, next);
      return next;
    });
    return c.json({ ...OK, binId, ...next });
  });
}
