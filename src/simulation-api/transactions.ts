import { authorize, DECLINE_REASONS, incrementAuthorisation } from '../domain/network/authorisations.js';
import { clearTransaction, forcePost } from '../domain/network/clearings.js';
import { FX_CURRENCIES } from '../domain/network/fx.js';
import { merchantFor, type Merchant } from '../domain/network/merchants.js';
import { microsToJsonNumber } from '../domain/kernel/money.js';
import { refundTransaction } from '../domain/network/refunds.js';
import { reverseTransaction } from '../domain/network/reversals.js';
import type { TxnOutcome } from '../domain/network/transaction-records.js';
import { runCommand } from '../http/command.js';
import type { Handlers } from '../http/router.js';
import { OK } from '../http/envelope.js';
import {
  optionalAmount,
  optionalBoolean,
  optionalEnum,
  optionalString,
  requiredAmount,
  requiredString,
  type Body,
} from '../http/validate.js';
import type { ServerDeps } from '../http/server-deps.js';

// Card amounts are in cents: a merchant amount has at most 2 decimal places.
const CARD_DECIMALS = 2;

/** An authorisation amount: 0 (a card verification) or a positive amount with at most 2 decimals. */
function authorisationAmount(body: Body): number {
  return body.amount === 0 ? 0 : requiredAmount(body, 'amount', CARD_DECIMALS);
}

/** The merchant fields a request gave; the rest are generated, seeded by the new transaction's id. */
function merchantOf(transactionId: string, body: Body): Promise<Merchant> {
  return merchantFor(transactionId, {
    merchantName: optionalString(body, 'merchantName'),
    merchantCountry: optionalString(body, 'merchantCountry'),
    mccCategory: optionalString(body, 'mccCategory'),
  });
}

/** A refund with no purchase behind it: its new id, which also seeds the generated merchant. */
async function goodwillRefund(deps: ServerDeps, cardId: string, body: Body) {
  const refundId = deps.ids.transactionId();
  const amountMicros = requiredAmount(body, 'amount', CARD_DECIMALS);
  return { cardId, amountMicros, merchant: await merchantOf(refundId, body), refundId };
}

/** A transaction as an answer shows it: its id, status and bill amount as they now stand. */
const view = (t: TxnOutcome) => ({
  transactionId: t.transactionId,
  status: t.status,
  billAmount: microsToJsonNumber(t.billAmountMicros),
});

/**
 * The merchant side of card transactions, as the card network delivers it (docs/design.md sections 6 and 15):
 * authorise, increment, clear (in full, for more or in parts), reverse (in full or in part), force post, refund.
 * Each answer carries the transaction it made or changed.
 */
export function transactionHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/card/authorize': async (c, body) => {
      const transactionId = deps.ids.transactionId();
      const input = {
        transactionId,
        cardId: requiredString(body, 'cardId'),
        amountMicros: authorisationAmount(body),
        currency: optionalEnum(body, 'currency', FX_CURRENCIES) ?? 'USD',
        merchant: await merchantOf(transactionId, body),
        declineReason: optionalEnum(body, 'declineReason', DECLINE_REASONS),
      };
      const r = runCommand(c, deps, (now) => authorize(deps, c.get('account').id, input, now));
      return c.json({
        ...OK,
        ...view(r),
        ...(r.declineReason ? { declineReason: r.declineReason } : {}),
        billCurrency: 'USD',
        ...input.merchant,
      });
    },
    'POST /sandbox/v1/transaction/increment': async (c, body) => {
      const input = {
        transactionId: requiredString(body, 'transactionId'),
        amountMicros: requiredAmount(body, 'amount', CARD_DECIMALS),
      };
      const r = runCommand(c, deps, (now) => incrementAuthorisation(deps, c.get('account').id, input, now));
      return c.json({ ...OK, ...view(r), ...(r.declineReason ? { declineReason: r.declineReason } : {}) });
    },
    'POST /sandbox/v1/transaction/clear': async (c, body) => {
      const final = optionalBoolean(body, 'final') ?? true;
      const input = {
        transactionId: requiredString(body, 'transactionId'),
        amountMicros: optionalAmount(body, 'amount', CARD_DECIMALS),
        final,
        partId: final ? undefined : deps.ids.transactionId(),
      };
      const r = runCommand(c, deps, (now) => clearTransaction(deps, c.get('account').id, input, now));
      return c.json({ ...OK, ...view(r), ...(r.authorization ? { authorization: view(r.authorization) } : {}) });
    },
    'POST /sandbox/v1/transaction/reverse': async (c, body) => {
      const input = {
        transactionId: requiredString(body, 'transactionId'),
        amountMicros: optionalAmount(body, 'amount', CARD_DECIMALS),
      };
      const r = runCommand(c, deps, (now) => reverseTransaction(deps, c.get('account').id, input, now));
      return c.json({ ...OK, ...view(r) });
    },
    'POST /sandbox/v1/transaction/force-post': async (c, body) => {
      const transactionId = deps.ids.transactionId();
      const input = {
        transactionId,
        cardId: requiredString(body, 'cardId'),
        amountMicros: requiredAmount(body, 'amount', CARD_DECIMALS),
        currency: optionalEnum(body, 'currency', FX_CURRENCIES) ?? 'USD',
        merchant: await merchantOf(transactionId, body),
      };
      const r = runCommand(c, deps, (now) => forcePost(deps, c.get('account').id, input, now));
      return c.json({ ...OK, ...view(r), billCurrency: 'USD', ...input.merchant });
    },
    'POST /sandbox/v1/transaction/refund': async (c, body) => {
      const cardId = optionalString(body, 'cardId');
      // The schema has it: a transactionId (a refund of a purchase), or a cardId with an amount (no purchase).
      const input =
        cardId === undefined
          ? {
              transactionId: requiredString(body, 'transactionId'),
              amountMicros: optionalAmount(body, 'amount', CARD_DECIMALS),
            }
          : await goodwillRefund(deps, cardId, body);
      const r = runCommand(c, deps, (now) => refundTransaction(deps, c.get('account').id, input, now));
      return c.json({ ...OK, ...view(r), ...(r.refundOf ? { refundOf: r.refundOf } : {}) });
    },
  };
}
