import { listDeposits, transferOnChain } from '../domain/chain/chain.js';
import type { ServerDeps } from '../http/server-deps.js';
import { caughtUpNow } from '../http/account-clock.js';
import { OK } from '../http/envelope.js';
import type { Handlers } from '../http/router.js';
import { microsOf } from '../http/amounts.js';

/** chain/transfer and chain/deposits: TRC20 USDT transfers to the account's deposit address. */
export function chainHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/chain/transfer': async (c, body) => {
      const amountMicros = microsOf(body.amount);
      const confirmations = body.confirmations ?? 0;
      const txId = body.txId;
      const fromAddress = body.fromAddress;
      const given = { amountMicros, confirmations, txId, fromAddress };
      const deposit = await transferOnChain(deps, c.get('account').id, given);
      return c.json({ ...OK, ...deposit });
    },
    'POST /sandbox/v1/chain/deposits': async (c) => {
      return c.json({ ...OK, deposits: await listDeposits(deps, c.get('account').id, await caughtUpNow(c, deps)) });
    },
  };
}
