import { authorize, incrementAuthorisation } from '../domain/network/authorisations.js';
import { clearTransaction, forcePost } from '../domain/network/clearings.js';
import { merchantFor, type Merchant } from '../domain/network/merchants.js';
import { microsToJsonNumber } from '../domain/kernel/money.js';
import { refundTransaction } from '../domain/network/refunds.js';
import { reverseTransaction } from '../domain/network/reversals.js';
import type { TxnOutcome } from '../domain/network/transaction-records.js';
import { runCommand } from '../http/run-command.js';
import type { Handlers } from '../http/router.js';
import type { RequestBody } from '../http/request-body.js';
import { OK } from '../http/envelope.js';
import { microsOf } from '../http/amounts.js';
import type { ServerDeps } from '../http/server-deps.js';

// Card amounts are in cents: a merchant amount has at most 2 decimal places.
const CARD_DECIMALS = 2;

/** An authorisation amount: 0 (a card verification) or a positive amount with at most 2 decimals. */
function authorisationAmount(body: { amount: number }): number {
  return body.amount === 0 ? 0 : microsOf(body.amount, CARD_DECIMALS);
}

/** The merchant fields a request may give (authorise, force post, a refund with no purchase). */
interface MerchantFields {
  merchantName?: string;
  merchantCountry?: string;
  mccCategory?: string;
}

/** The merchant fields a request gave; the rest are generated, seeded by the new transaction's id. */
function merchantOf(transactionId: string, body: MerchantFields): Promise<Merchant> {
  return merchantFor(transactionId, {
    merchantName: body.merchantName,
    merchantCountry: body.merchantCountry,
    mccCategory: body.mccCategory,
  });
}

/** A refund with no purchase behind it: its new id, which also seeds the generated merchant. */
async function goodwillRefund(deps: ServerDeps, cardId: string, body: MerchantFields & { amount: number }) {
  const refundId = deps.ids.transactionId();
  const amountMicros = microsOf(body.amount, CARD_DECIMALS);
  return { cardId, amountMicros, merchant: await merchantOf(refundId, body), refundId };
}

type RefundBody = Partial<RequestBody<'POST /sandbox/v1/transaction/refund'>> &
  MerchantFields & {
    transactionId?: string;
    cardId?: string;
    amount?: number;
  };

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
        cardId: body.cardId,
        amountMicros: authorisationAmount(body),
        currency: body.currency ?? 'USD',
        merchant: await merchantOf(transactionId, body),
        declineReason: body.declineReason,
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
        transactionId: body.transactionId,
        amountMicros: microsOf(body.amount, CARD_DECIMALS),
      };
      const r = runCommand(c, deps, (now) => incrementAuthorisation(deps, c.get('account').id, input, now));
      return c.json({ ...OK, ...view(r), ...(r.declineReason ? { declineReason: r.declineReason } : {}) });
    },
    'POST /sandbox/v1/transaction/clear': async (c, body) => {
      const final = body.final ?? true;
      const input = {
        transactionId: body.transactionId,
        amountMicros: body.amount === undefined ? undefined : microsOf(body.amount, CARD_DECIMALS),
        final,
        partId: final ? undefined : deps.ids.transactionId(),
      };
      const r = runCommand(c, deps, (now) => clearTransaction(deps, c.get('account').id, input, now));
      return c.json({ ...OK, ...view(r), ...(r.authorization ? { authorization: view(r.authorization) } : {}) });
    },
    'POST /sandbox/v1/transaction/reverse': async (c, body) => {
      const input = {
        transactionId: body.transactionId,
        amountMicros: body.amount === undefined ? undefined : microsOf(body.amount, CARD_DECIMALS),
      };
      const r = runCommand(c, deps, (now) => reverseTransaction(deps, c.get('account').id, input, now));
      return c.json({ ...OK, ...view(r) });
    },
    'POST /sandbox/v1/transaction/force-post': async (c, body) => {
      const transactionId = deps.ids.transactionId();
      const input = {
        transactionId,
        cardId: body.cardId,
        amountMicros: microsOf(body.amount, CARD_DECIMALS),
        currency: body.currency ?? 'USD',
        merchant: await merchantOf(transactionId, body),
      };
      const r = runCommand(c, deps, (now) => forcePost(deps, c.get('account').id, input, now));
      return c.json({ ...OK, ...view(r), billCurrency: 'USD', ...input.merchant });
    },
    'POST /sandbox/v1/transaction/refund': async (c, oneOf) => {
      // The schema's oneOf (a purchase's refund, or one with no purchase) as the fields either may hold.
      const body = oneOf as RefundBody;
      const cardId = body.cardId;
      // The schema has it: a transactionId (a refund of a purchase), or a cardId with an amount (no purchase).
      const input =
        cardId === undefined
          ? {
              transactionId: body.transactionId!,
              amountMicros: body.amount === undefined ? undefined : microsOf(body.amount, CARD_DECIMALS),
            }
          : await goodwillRefund(deps, cardId, { ...body, amount: body.amount! });
      const r = runCommand(c, deps, (now) => refundTransaction(deps, c.get('account').id, input, now));
      return c.json({ ...OK, ...view(r), ...(r.refundOf ? { refundOf: r.refundOf } : {}) });
    },
  };
}
