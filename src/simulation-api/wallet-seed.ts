import { seedBalance } from '../domain/accounts/accounts.js';
import type { ServerDeps } from '../http/server-deps.js';
import { formatMicros } from '../domain/kernel/money.js';
import { OK } from '../http/envelope.js';
import { runCommand } from '../http/run-command.js';
import type { Handlers } from '../http/router.js';
import { microsOf } from '../http/amounts.js';

/** wallet/seed: credits the USDT balance at once, as the operator's test-balance seeding does. */
export function walletSeedHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/wallet/seed': async (c, body) => {
      const amountMicros = microsOf(body.amount);
      const accountId = c.get('account').id;
      const walletMicros = runCommand(c, deps, (now) => seedBalance(deps, accountId, amountMicros, now));
      return c.json({ ...OK, availableAmount: formatMicros(walletMicros) });
    },
  };
}
