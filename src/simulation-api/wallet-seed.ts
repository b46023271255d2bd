import { Hono } from 'hono';
import { seedBalance } from '../domain/accounts.js';
import type { ServerDeps } from '../server-deps.js';
import { balance } from '../domain/ledger.js';
import { formatMicros } from '../domain/money.js';
import { OK } from '../http/envelope.js';
import { runCommand } from '../http/command.js';
import type { AppEnv } from '../http/context.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { requiredAmount } from '../http/validate.js';

/** wallet/seed: credits the USDT balance at once, as the operator's test-balance seeding does. */
export function walletSeedRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>().post('/wallet/seed', async (c) => {
    const amountMicros = requiredAmount(await readJsonObject(c), 'amount');
    const accountId = c.get('account').id;
    runCommand(c, deps, (now) => seedBalance(deps, accountId, amountMicros, now));
    return c.json({ ...OK, availableAmount: formatMicros(balance(deps.db, accountId, 'wallet')) });
  });
}
