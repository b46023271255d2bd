import { listDeposits, transferOnChain } from '../domain/chain/chain.js';
import type { ServerDeps } from '../http/server-deps.js';
import { catchUp } from '../http/command.js';
import { OK } from '../http/envelope.js';
import type { Handlers } from '../http/router.js';
import { optionalInteger, optionalString, requiredAmount } from '../http/validate.js';

/** chain/transfer and chain/deposits: TRC20 USDT transfers to the account's deposit address. */
export function chainHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/chain/transfer': async (c, body) => {
      const amountMicros = requiredAmount(body, 'amount');
      const confirmations = optionalInteger(body, 'confirmations') ?? 0;
      const txId = optionalString(body, 'txId');
      const fromAddress = optionalString(body, 'fromAddress');
      const given = { amountMicros, confirmations, txId, fromAddress };
      const deposit = await transferOnChain(deps, c.get('account').id, given);
      return c.json({ ...OK, ...deposit });
    },
    'POST /sandbox/v1/chain/deposits': async (c) => {
      return c.json({ ...OK, deposits: listDeposits(deps, c.get('account').id, catchUp(c, deps)) });
    },
  };
}
