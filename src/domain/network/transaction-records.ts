import { assertInTransaction } from '../../store/db.js';
import {
  findTransaction,
  insertTransaction,
  setPendingAmounts,
  settleTransactionRow,
  spentOnDayMicros,
  type NewTxn,
  type TxnRow,
  type TxnStatus,
} from '../../store/transactions.js';
import type { Card } from '../cards/cards.js';
import type { Deps } from '../kernel/deps.js';
import type { Merchant } from './merchants.js';
import { DomainError } from '../kernel/errors.js';
import { emitEvent } from '../events/outbox.js';
import { proportionalMicros } from './fx.js';
import { transactionEventData } from '../events/data.js';

// What every network message shares (docs/design.md sections 6 and 15): a transaction row and the event that
// reports it, written together. Every event carries the transaction's whole state after the change (its status and
// its amounts as they now stand), so a partner's ledger folded from the events alone agrees with card/asset.

const DAY_MS = 24 * 3600 * 1000;

/** The outcome of a message, for its answer: the transaction it made or changed, as it now stands. */
export interface TxnOutcome {
  transactionId: string;
  status: TxnStatus;
  billAmountMicros: number;
}

export const outcomeOf = (t: TxnRow): TxnOutcome => ({
  transactionId: t.id,
  status: t.status,
  billAmountMicros: t.bill_amount_micros,
});

/** What a new transaction is: its id and kind, its amounts and currency, its merchant, and what it refers to. */
export interface TransactionFacts {
  id: string;
  kind: 'SPEND' | 'REFUND';
  billMicros: number;
  transactionMicros: number;
  currency: string;
  merchant: Merchant;
  parentId?: string;
}

/** A purchase message as the network sends it (an authorisation, a force post). */
interface SpendMessage {
  transactionId: string;
  amountMicros: number;
  currency: string;
  merchant: Merchant;
}

/** The facts of a purchase, once its amount in the card's currency (`billMicros`) is known. */
export function spendFacts(m: SpendMessage, billMicros: number): TransactionFacts {
  return {
    id: m.transactionId,
    kind: 'SPEND',
    billMicros,
    transactionMicros: m.amountMicros,
    currency: m.currency,
    merchant: m.merchant,
  };
}

/** The row of a new transaction on the card, PENDING with nothing held (callers set what differs). */
export function transactionRow(card: Card, f: TransactionFacts, nowMs: number): NewTxn {
  return {
    id: f.id,
    account_id: card.accountId,
    card_id: card.id,
    bin_id: card.binId,
    kind: f.kind,
    status: 'PENDING',
    bill_amount_micros: f.billMicros,
    transaction_amount_micros: f.transactionMicros,
    transaction_currency: f.currency,
    merchant_name: f.merchant.merchantName,
    merchant_country: f.merchant.merchantCountry,
    mcc_category: f.merchant.mccCategory,
    decline_reason: null,
    parent_id: f.parentId ?? null,
    created_at_ms: nowMs,
  };
}

/** Inserts a transaction and emits its `transaction.created` (its first sight: PENDING, or CLEARED for a clearing). */
export async function recordCreated(deps: Deps, t: NewTxn, nowMs: number): Promise<TxnRow> {
  await insertTransaction(deps.db, t);
  const row = (await findTransaction(deps.db, t.account_id, t.id))!;
  await emitEvent(deps, t.account_id, nowMs, 'transaction.created', transactionEventData(row));
  return row;
}

/** Moves a PENDING transaction to its final state, with the `transaction.updated` event. */
export async function recordSettled(
  deps: Deps,
  t: TxnRow,
  to: TxnStatus,
  nowMs: number,
  patch: Partial<TxnRow> = {},
): Promise<TxnRow> {
  const next: TxnRow = { ...t, ...patch, status: to, settled_at_ms: nowMs };
  await settleTransactionRow(deps.db, next);
  await emitEvent(deps, t.account_id, nowMs, 'transaction.updated', transactionEventData(next, t.status));
  return next;
}

/**
 * A PENDING authorisation whose hold is now `billMicros` (an increment, a partial reversal or clearing): it stays
 * PENDING, and `transaction.updated` PENDING -> PENDING carries the new total. The merchant amount follows in
 * proportion, so a foreign-currency authorisation keeps its rate.
 */
export async function recordNewHold(deps: Deps, t: TxnRow, billMicros: number, nowMs: number): Promise<TxnRow> {
  const transactionMicros = proportionalMicros(t.transaction_amount_micros, billMicros, t.bill_amount_micros);
  if (!(await setPendingAmounts(deps.db, t.id, { billMicros, transactionMicros })))
    throw new Error(`${t.id} is not PENDING`);
  const next: TxnRow = {
    ...t,
    bill_amount_micros: billMicros,
    hold_micros: billMicros,
    transaction_amount_micros: transactionMicros,
  };
  await emitEvent(deps, t.account_id, nowMs, 'transaction.updated', transactionEventData(next, 'PENDING'));
  return next;
}

/** The account's transaction that must be PENDING for `action` (`cleared`, `reversed`, `incremented`). */
export async function pendingTransaction(deps: Deps, accountId: string, id: string, action: string): Promise<TxnRow> {
  assertInTransaction(deps.db, `the ${action} command`);
  const t = await findTransaction(deps.db, accountId, id);
  if (!t) throw new DomainError('TRANSACTION_NOT_FOUND');
  if (t.status !== 'PENDING') {
    throw new DomainError(
      'TRANSACTION_NOT_PENDING',
      `transaction is ${t.status}: only a PENDING transaction can be ${action}`,
    );
  }
  return t;
}

/** Bill amounts of the card's PENDING and CLEARED spends in the UTC day of `nowMs` (refunds give no room back). */
export async function spentTodayMicros(
  deps: Deps,
  card: Pick<Card, 'accountId' | 'id'>,
  nowMs: number,
): Promise<number> {
  return await spentOnDayMicros(deps.db, card.accountId, card.id, nowMs - (nowMs % DAY_MS));
}

/** A clearing with no authorisation (a force post) lands on an ACTIVE or FROZEN card only. */
export function assertCardTakesClearing(card: Card): void {
  if (card.status === 'CANCELLING') throw new DomainError('CARD_IS_DELETING');
  if (card.status === 'CANCELLED') throw new DomainError('CARD_CANCELLED');
}
