import type { Account } from '../domain/accounts/accounts.js';
import { binView, getBin } from '../domain/cards/bins.js';
import { maskGrouped, maskStored } from '../domain/cards/card-data.js';
import type { Card, CreatedCard } from '../domain/cards/cards.js';
import type { ServerDeps } from '../http/server-deps.js';
import { balancesOf, ledgerId } from '../domain/ledger/ledger.js';
import { formatCents, formatMicros, microsToJsonNumber } from '../domain/kernel/money.js';
import { LISTING_STATUS, type BillRow } from '../domain/network/transactions.js';

// Response shapes of the partner API (docs/design.md section 3), one function per resource view.

export function cardCreatedView({ card, bin }: CreatedCard) {
  return {
    cardId: card.id,
    binId: card.binId,
    cardStatus: card.status,
    maskedCardNo: maskGrouped(card.last4),
    cardBrand: bin.cardNetwork,
    openFee: microsToJsonNumber(card.openFeeMicros),
  };
}

/** A card's two balances, read in one statement (on PostgreSQL a statement is a round trip). */
async function cardBalances(deps: ServerDeps, card: Card) {
  const ids = [ledgerId(card.accountId, 'card', card.id), ledgerId(card.accountId, 'held', card.id)] as const;
  const balances = await balancesOf(deps, ids);
  return { availableMicros: balances.get(ids[0])!, heldMicros: balances.get(ids[1])! };
}

/** card/list rows: every card's two balances read in one statement. */
export async function cardListViews(deps: ServerDeps, cards: readonly Card[]) {
  const ids = cards.flatMap((c) => [ledgerId(c.accountId, 'card', c.id), ledgerId(c.accountId, 'held', c.id)]);
  const balances = await balancesOf(deps, ids);
  return cards.map((card, i) =>
    listItem(card, { availableMicros: balances.get(ids[2 * i]!)!, heldMicros: balances.get(ids[2 * i + 1]!)! }),
  );
}

function listItem(card: Card, b: { availableMicros: number; heldMicros: number }) {
  return {
    cardId: card.id,
    binId: card.binId,
    cardStatus: card.status,
    maskedCardNo: maskStored(card.last4),
    availableBalance: microsToJsonNumber(b.availableMicros),
    frozenAmount: microsToJsonNumber(b.heldMicros),
    currency: 'USD',
  };
}

export async function cardDetailView(deps: ServerDeps, account: Account, card: Card) {
  const bin = await getBin(deps, card.binId);
  const b = await cardBalances(deps, card);
  return {
    cardId: card.id,
    binId: card.binId,
    alias: card.alias,
    cardStatus: card.status,
    maskedCardNo: maskStored(card.last4),
    cardBrand: bin.cardNetwork,
    currency: 'USD',
    availableBalance: microsToJsonNumber(b.availableMicros),
    frozenAmount: microsToJsonNumber(b.heldMicros),
    createdAt: new Date(card.createdAtMs).toISOString(),
    bin: binView(bin, account.depositFeeRatePpm),
  };
}

export async function cardAssetView(deps: ServerDeps, card: Card) {
  const b = await cardBalances(deps, card);
  return {
    availableAmount: formatMicros(b.availableMicros),
    frozenAmount: formatMicros(b.heldMicros),
    currency: 'USD',
  };
}

/** A bill/list row: signed two-decimal amount (a spend is negative, a refund positive). */
export function billView(t: BillRow) {
  const sign = t.kind === 'REFUND' ? 1 : -1;
  return {
    transactionTime: new Date(t.created_at_ms).toISOString(),
    merchant: t.merchant_name,
    amount: formatCents(t.bill_amount_micros === 0 ? 0 : sign * t.bill_amount_micros),
    currency: t.bill_currency,
    status: LISTING_STATUS[t.status],
  };
}
