import { assertInTransaction } from '../../store/db.js';
import { openRunOf, storeLedgerCheck } from '../../store/readiness.js';
import { getOwnedCard } from '../cards/cards.js';
import type { Deps } from '../kernel/deps.js';
import { DomainError } from '../kernel/errors.js';
import { balance } from '../ledger/ledger.js';
import { formatMicros } from '../kernel/money.js';
import { LEDGER_CHECK, outcome, type CheckOutcome } from './catalogue.js';

// The readiness check ledger-agrees (docs/readiness.md): during a run's window the partner posts what its own
// ledger says of its cards (readiness/ledger); each card is compared with card/asset at that moment. The run keeps
// the last post: a partner whose ledger lagged and caught up posts again.

export interface PostedCard {
  cardId: string;
  availableMicros: number;
  heldMicros: number;
}

interface Figures {
  availableAmount: string;
  frozenAmount: string;
}

export interface LedgerDifference {
  cardId: string;
  posted: Figures;
  actual: Figures;
}

interface StoredLedgerCheck {
  requestId: string;
  atMs: number;
  cards: number;
  differences: LedgerDifference[];
}

/** Differences shown in a failed check's advice; the readiness/ledger answer lists them all. */
const DIFFERENCES_TOLD = 5;

const figures = (availableMicros: number, heldMicros: number): Figures => ({
  availableAmount: formatMicros(availableMicros),
  frozenAmount: formatMicros(heldMicros),
});

/**
 * readiness/ledger: compares the posted cards with card/asset now and keeps the comparison on the account's running
 * run. Every card must be the account's (4001); without a running run, 400.
 */
export function postLedger(
  deps: Deps,
  accountId: string,
  post: { requestId: string; cards: readonly PostedCard[] },
): { runId: string; result: 'pass' | 'fail'; differences: LedgerDifference[] } {
  assertInTransaction(deps.db, 'postLedger');
  const nowMs = deps.wallClock();
  const run = openRunOf(deps.db, accountId);
  if (!run || run.ends_at_ms <= nowMs) throw new DomainError('READINESS_NO_RUN');
  const differences: LedgerDifference[] = [];
  for (const posted of post.cards) {
    const card = getOwnedCard(deps, accountId, posted.cardId);
    const available = balance(deps, accountId, 'card', card.id);
    const frozen = balance(deps, accountId, 'held', card.id);
    if (available !== posted.availableMicros || frozen !== posted.heldMicros) {
      differences.push({
        cardId: card.id,
        posted: figures(posted.availableMicros, posted.heldMicros),
        actual: figures(available, frozen),
      });
    }
  }
  const stored: StoredLedgerCheck = { requestId: post.requestId, atMs: nowMs, cards: post.cards.length, differences };
  storeLedgerCheck(deps.db, run.id, JSON.stringify(stored));
  return { runId: run.id, result: differences.length === 0 ? 'pass' : 'fail', differences };
}

/** The check from the run's last ledger post: not_observed without one. */
export function ledgerCheck(json: string | null): CheckOutcome {
  if (json === null)
    return outcome(LEDGER_CHECK, 'not_observed', [], 'No ledger was posted (readiness/ledger) in the window. ');
  const post = JSON.parse(json) as StoredLedgerCheck;
  if (post.differences.length === 0) return outcome(LEDGER_CHECK, 'pass', [post.requestId]);
  const told = post.differences
    .slice(0, DIFFERENCES_TOLD)
    .map(
      (d) =>
        `card ${d.cardId}: your ledger says available ${d.posted.availableAmount}, frozen ${d.posted.frozenAmount}; ` +
        `card/asset says available ${d.actual.availableAmount}, frozen ${d.actual.frozenAmount}`,
    );
  const more = post.differences.length - told.length;
  const finding = `${post.differences.length} of ${post.cards} cards differ: ${told.join('; ')}${more > 0 ? `; and ${more} more` : ''}. `;
  return outcome(LEDGER_CHECK, 'fail', [post.requestId], finding);
}
