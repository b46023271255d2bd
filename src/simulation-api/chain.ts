import { ensureDepositAddress } from '../domain/accounts.js';
import { listDeposits, recordTransfer } from '../domain/chain.js';
import type { ServerDeps } from '../server-deps.js';
import { generateTronAddress, isTronAddress } from '../domain/deposit-address.js';
import { catchUp, runCommand } from '../http/command.js';
import { OK } from '../http/envelope.js';
import type { Handlers } from '../http/router.js';
import { optionalInteger, optionalString, requiredAmount } from '../http/validate.js';
import { DomainError, invalidField } from '../domain/errors.js';

/** chain/transfer and chain/deposits: TRC20 USDT transfers to the account's deposit address. */
export function chainHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/chain/transfer': async (c, body) => {
      const amountMicros = requiredAmount(body, 'amount');
      const confirmations = optionalInteger(body, 'confirmations') ?? 0;
      const txId = optionalString(body, 'txId');
      const from = optionalString(body, 'fromAddress');
      // The schema checks the alphabet and length; only the base58check checksum needs the decoder.
      if (from !== undefined && !(await isTronAddress(from)))
        throw invalidField('fromAddress must be a TRON base58check address');
      const accountId = c.get('account').id;
      const address = await ensureDepositAddress(deps, accountId);
      if (!address) throw new DomainError('ADDRESS_ERROR');
      const transfer = {
        txId: txId ?? deps.ids.hex(32),
        address,
        fromAddress: from ?? (await generateTronAddress()),
        amountMicros,
        confirmations,
      };
      const deposit = runCommand(c, deps, (now) => recordTransfer(deps, accountId, transfer, now));
      return c.json({ ...OK, ...deposit });
    },
    'POST /sandbox/v1/chain/deposits': async (c) => {
      return c.json({ ...OK, deposits: listDeposits(deps, c.get('account').id, catchUp(c, deps)) });
    },
  };
}
