import { findTransaction } from '../../store/transactions.js';
import { AUTH_EXPIRY_JOB } from './authorisation-expiry.js';
import type { Deps } from '../kernel/deps.js';
import { DomainError } from '../kernel/errors.js';
import { transfer } from '../ledger/ledger.js';
import { formatMicros } from '../kernel/money.js';
import { outcomeOf, pendingTransaction, recordNewHold, recordSettled, type TxnOutcome } from './transaction-records.js';

// Reversals (docs/design.md sections 6 and 15): the merchant gives back all of a hold (CANCELLED) or part of it (the
// hold shrinks, still PENDING); an authorisation never cleared is reversed 7 days of account time after it was made.
// In ledger terms the hold, or that part of it, goes back held -> card.

/**
 * transaction/reverse: without `amountMicros` (or with the whole hold) the authorisation is CANCELLED and its hold
 * released; with less, that much is released and it stays PENDING with the rest.
 */
export async function reverseTransaction(
  deps: Deps,
  accountId: string,
  input: { transactionId: string; amountMicros?: number },
  nowMs: number,
): Promise<TxnOutcome> {
  const t = await pendingTransaction(deps, accountId, input.transactionId, 'reversed');
  const amount = input.amountMicros ?? t.hold_micros;
  if (amount > t.hold_micros) {
    throw new DomainError(
      'REVERSAL_EXCEEDS_HOLD',
      `amount exceeds the authorisation's hold (${formatMicros(t.hold_micros)}): reverse it whole by leaving amount out`,
    );
  }
  await transfer(deps, {
    accountId,
    debit: { kind: 'held', cardId: t.card_id },
    credit: { kind: 'card', cardId: t.card_id },
    amountMicros: amount,
    reason: amount === t.hold_micros ? 'reverse' : 'reverse.part',
    ref: t.id,
    atMs: nowMs,
  });
  if (amount < t.hold_micros) return outcomeOf(await recordNewHold(deps, t, t.hold_micros - amount, nowMs));
  await deps.jobs.cancel(deps.db, accountId, AUTH_EXPIRY_JOB, t.id);
  return outcomeOf(await recordSettled(deps, t, 'CANCELLED', nowMs));
}

/** Job: an authorisation still PENDING 7 days after it was made is reversed (CANCELLED), whatever is left of it. */
async function expireAuthorisation(deps: Deps, accountId: string, id: string, nowMs: number): Promise<void> {
  const t = await findTransaction(deps.db, accountId, id);
  if (t?.status === 'PENDING') await reverseTransaction(deps, accountId, { transactionId: id }, nowMs);
}

export function registerCardTransactionJobs(deps: Deps): void {
  deps.jobs.register(AUTH_EXPIRY_JOB, {
    run: (deps, job) => expireAuthorisation(deps, job.accountId, job.ref, job.dueAtMs),
  });
}
