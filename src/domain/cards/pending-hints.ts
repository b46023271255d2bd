import { firstSettlingTopUp } from '../../store/topups.js';
import { pendingAuthorisations } from '../../store/transactions.js';
import type { Deps } from '../kernel/deps.js';
import { formatMicros } from '../kernel/money.js';
import { AUTH_EXPIRY_MS } from '../network/authorisation-expiry.js';

// The hints of a 4007 (REJECTED_HAVING_PENDING_ORDERS): the spec says only "a conflicting operation is pending on
// this card"; the sandbox knows which one, and when it ends on the account clock.

const iso = (ms: number) => new Date(ms).toISOString();
/** How far `atMs` is from `nowMs`, in whole seconds of account time (at least 1 while it is ahead). */
const secondsUntil = (atMs: number, nowMs: number) => Math.max(1, Math.ceil((atMs - nowMs) / 1000));

/** A card/deposit, freeze, unfreeze or cancel refused while a top-up settles. */
export async function settlingTopUpHint(
  deps: Pick<Deps, 'db'>,
  cardId: string,
  nowMs: number,
): Promise<string | undefined> {
  const t = await firstSettlingTopUp(deps.db, cardId);
  if (!t) return undefined;
  const seconds = secondsUntil(t.settles_at_ms, nowMs);
  return (
    `A top-up of ${formatMicros(t.amount_micros)} USDT to this card is settling: it settles at ${iso(t.settles_at_ms)} ` +
    `on the account clock (in ${seconds} s), and deposit, freeze, unfreeze and cancel wait for it. Retry then, or ` +
    `advance the account clock (POST /sandbox/v1/clock {"advanceSeconds": ${seconds}}).`
  );
}

/** A card/cancel refused while the card has PENDING authorisations. */
export async function pendingAuthorisationsHint(deps: Pick<Deps, 'db'>, cardId: string): Promise<string | undefined> {
  const { rows, total } = await pendingAuthorisations(deps.db, cardId, 3);
  if (total === 0) return undefined;
  const ids = rows.map((r) => r.id).join(', ') + (total > rows.length ? ` and ${total - rows.length} more` : '');
  return (
    `card/cancel waits for this card's ${total} PENDING authorisation${total === 1 ? '' : 's'} (${ids}): clear or ` +
    'reverse them (POST /sandbox/v1/transaction/clear or /reverse), or let them expire: an authorisation is ' +
    `reversed 7 days after it was made, the first at ${iso(rows[0]!.created_at_ms + AUTH_EXPIRY_MS)} on the account clock.`
  );
}
