import { findTransaction } from '../../store/transactions.js';
import { authorize, incrementAuthorisation } from '../network/authorisations.js';
import { clearTransaction, forcePost } from '../network/clearings.js';
import type { Deps } from '../kernel/deps.js';
import type { Merchant } from '../network/merchants.js';
import { MICROS_PER_CENT } from '../kernel/money.js';
import { refundTransaction } from '../network/refunds.js';
import { reverseTransaction } from '../network/reversals.js';
import type { Message } from './plan.js';

// One message of a traffic story, sent as the network would send it: through the same domain commands as the
// simulation API, with amounts relative to the transaction as it then stands (a share of its hold, of what remains
// refundable).

/** `permille` of an amount, to the cent, at least a cent. */
const share = (micros: number, permille: number) =>
  Math.max(MICROS_PER_CENT, Math.round((micros * permille) / 1000 / MICROS_PER_CENT) * MICROS_PER_CENT);

export interface Target {
  accountId: string;
  cardId: string;
  merchant: Merchant;
}

/** Sends one message; answers the transaction the story follows up next (undefined: the story ends here). */
export async function sendMessage(
  deps: Deps,
  to: Target,
  m: Message,
  followed: string,
  nowMs: number,
): Promise<string | undefined> {
  const { accountId } = to;
  const held = async () => (await findTransaction(deps.db, accountId, followed))?.hold_micros ?? 0;
  switch (m.kind) {
    case 'authorize': {
      const input = {
        transactionId: deps.ids.transactionId(),
        cardId: to.cardId,
        merchant: to.merchant,
        amountMicros: m.amountMicros,
        currency: m.currency,
        declineReason: m.declineReason,
      };
      return (await authorize(deps, accountId, input, nowMs)).transactionId;
    }
    case 'increment':
      await incrementAuthorisation(
        deps,
        accountId,
        { transactionId: followed, amountMicros: share(await held(), m.permille) },
        nowMs,
      );
      return followed;
    case 'reverse': {
      const part = m.permille === undefined ? undefined : share(await held(), m.permille);
      const amountMicros = part !== undefined && part < (await held()) ? part : undefined;
      await reverseTransaction(deps, accountId, { transactionId: followed, amountMicros }, nowMs);
      return followed;
    }
    case 'clear': {
      const hold = await held();
      if (m.final) {
        const amountMicros = m.permille === undefined ? undefined : share(hold, m.permille);
        await clearTransaction(deps, accountId, { transactionId: followed, amountMicros, final: true }, nowMs);
        return followed;
      }
      if (hold === 0) return followed;
      const part = { amountMicros: Math.min(hold, share(hold, m.permille ?? 500)), partId: deps.ids.transactionId() };
      await clearTransaction(deps, accountId, { transactionId: followed, final: false, ...part }, nowMs);
      return followed;
    }
    case 'refund': {
      const purchase = await findTransaction(deps.db, accountId, followed);
      const remaining = purchase ? purchase.cleared_micros - purchase.refunded_micros : 0;
      if (remaining <= 0) return undefined;
      const amountMicros = Math.min(remaining, share(remaining, m.permille));
      await refundTransaction(deps, accountId, { transactionId: followed, amountMicros }, nowMs);
      return undefined;
    }
    case 'forcePost': {
      const input = { transactionId: deps.ids.transactionId(), cardId: to.cardId, merchant: to.merchant };
      return (await forcePost(deps, accountId, { ...input, amountMicros: m.amountMicros, currency: m.currency }, nowMs))
        .transactionId;
    }
    case 'unlinkedRefund': {
      const input = { cardId: to.cardId, refundId: deps.ids.transactionId(), merchant: to.merchant };
      await refundTransaction(deps, accountId, { ...input, amountMicros: m.amountMicros }, nowMs);
      return undefined;
    }
  }
}
