import {
  DECLINE_REASONS,
  authorize,
  clearTransaction,
  refundTransaction,
  reverseTransaction,
} from '../domain/card-transactions.js';
import type { ServerDeps } from '../server-deps.js';
import { FX_CURRENCIES } from '../domain/fx.js';
import { merchantFor } from '../domain/merchants.js';
import { microsToJsonNumber } from '../domain/money.js';
import { OK } from '../http/envelope.js';
import { runCommand } from '../http/command.js';
import type { Handlers } from '../http/router.js';
import {
  optionalAmount,
  optionalEnum,
  optionalString,
  requiredAmount,
  requiredString,
  type Body,
} from '../http/validate.js';

// Card amounts are in cents: a merchant amount has at most 2 decimal places.
const CARD_DECIMALS = 2;

/** An authorisation amount: 0 (a card verification) or a positive amount with at most 2 decimals. */
function authorisationAmount(body: Body): number {
  return body.amount === 0 ? 0 : requiredAmount(body, 'amount', CARD_DECIMALS);
}

/** The merchant side of card transactions: authorise, clear, reverse, refund. */
export function transactionHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/card/authorize': async (c, body) => {
      const cardId = requiredString(body, 'cardId');
      const amountMicros = authorisationAmount(body);
      const currency = optionalEnum(body, 'currency', FX_CURRENCIES) ?? 'USD';
      const given = {
        merchantName: optionalString(body, 'merchantName'),
        merchantCountry: optionalString(body, 'merchantCountry'),
        mccCategory: optionalString(body, 'mccCategory'),
      };
      const declineReason = optionalEnum(body, 'declineReason', DECLINE_REASONS);
      const accountId = c.get('account').id;
      const transactionId = deps.ids.transactionId();
      const merchant = await merchantFor(transactionId, given);
      const input = { transactionId, cardId, amountMicros, currency, merchant, declineReason };
      const r = runCommand(c, deps, (now) => authorize(deps, accountId, input, now));
      return c.json({
        ...OK,
        transactionId: r.transactionId,
        status: r.status,
        ...(r.declineReason ? { declineReason: r.declineReason } : {}),
        billAmount: microsToJsonNumber(r.billAmountMicros),
        billCurrency: 'USD',
        ...merchant,
      });
    },
    'POST /sandbox/v1/transaction/clear': async (c, body) => {
      const id = requiredString(body, 'transactionId');
      const amountMicros = optionalAmount(body, 'amount', CARD_DECIMALS);
      runCommand(c, deps, (now) => clearTransaction(deps, c.get('account').id, id, amountMicros, now));
      return c.json({ ...OK, transactionId: id, status: 'CLEARED' });
    },
    'POST /sandbox/v1/transaction/reverse': async (c, body) => {
      const id = requiredString(body, 'transactionId');
      runCommand(c, deps, (now) => reverseTransaction(deps, c.get('account').id, id, now));
      return c.json({ ...OK, transactionId: id, status: 'CANCELLED' });
    },
    'POST /sandbox/v1/transaction/refund': async (c, body) => {
      const id = requiredString(body, 'transactionId');
      const amountMicros = optionalAmount(body, 'amount', CARD_DECIMALS);
      const refundId = runCommand(c, deps, (now) =>
        refundTransaction(deps, c.get('account').id, id, amountMicros, now),
      );
      return c.json({ ...OK, transactionId: refundId, refundOf: id, status: 'REFUND' });
    },
  };
}
