import {
  cancellingCardAccount,
  cardRowsOf,
  insertCard,
  markCardCancelled,
  markCardCancelling,
  ownedCardRow,
  ownedCardRowSettling,
  setCardStatus,
  type CardRow,
  type CardStatus,
} from '../../store/cards.js';
import { assertInTransaction } from '../../store/db.js';
import { insertTopUp, settleTopUpRow } from '../../store/topups.js';
import { hasPendingAuthorisation } from '../../store/transactions.js';
import type { Account } from '../accounts/accounts.js';
import { getBin, takeFromInventory, type Bin } from './bins.js';
import { derivePan } from './card-data.js';
import type { Deps } from '../kernel/deps.js';
import { DomainError } from '../kernel/errors.js';
import { cardChangedData, cardCreatedData } from '../events/data.js';
import { emitEvent } from '../events/outbox.js';
import { cardCredit } from './fees.js';
import { balance, transfer, transfers, type TransferInput } from '../ledger/ledger.js';
import { pendingAuthorisationsHint, settlingTopUpHint } from './pending-hints.js';

export type { CardStatus };
/** @internal exported for the test that holds the contract's card statuses to the domain's */
export const CARD_STATUSES: readonly CardStatus[] = ['ACTIVE', 'FROZEN', 'CANCELLING', 'CANCELLED'];

export interface Card {
  id: string;
  accountId: string;
  binId: string;
  alias: string | null;
  status: CardStatus;
  last4: string;
  openFeeMicros: number;
  createdAtMs: number;
}

const toCard = (r: CardRow): Card => ({
  id: r.id,
  accountId: r.account_id,
  binId: r.bin_id,
  alias: r.alias,
  status: r.status,
  last4: r.last4,
  openFeeMicros: r.open_fee_micros,
  createdAtMs: r.created_at_ms,
});

const TOPUP_SETTLE_JOB = 'topup.settle';
const CARD_CANCEL_JOB = 'card.cancel';

/** The account's card; another account's card is indistinguishable from none (4001). */
export async function getOwnedCard(deps: Deps, accountId: string, cardId: string): Promise<Card> {
  const row = await ownedCardRow(deps.db, accountId, cardId);
  if (!row) throw new DomainError('CARD_NOT_FOUND');
  return toCard(row);
}

export async function listCards(deps: Deps, accountId: string, status?: CardStatus): Promise<Card[]> {
  return (await cardRowsOf(deps.db, accountId, status)).map(toCard);
}

/**
 * The account's card for a change to it, after the state checks the card mutations share, in the documented order:
 * 4001, 4008, 4007, then cancelled. The card and whether a top-up of it is settling are one read.
 */
async function getMutableCard(deps: Deps, accountId: string, cardId: string, nowMs: number): Promise<Card> {
  const row = await ownedCardRowSettling(deps.db, accountId, cardId);
  if (!row) throw new DomainError('CARD_NOT_FOUND');
  if (row.status === 'CANCELLING') throw new DomainError('CARD_IS_DELETING');
  if (row.settling === 1)
    throw new DomainError('REJECTED_HAVING_PENDING_ORDERS').withHint(await settlingTopUpHint(deps, row.id, nowMs));
  if (row.status === 'CANCELLED') throw new DomainError('CARD_CANCELLED');
  return toCard(row);
}

/**
 * Fails with 8001 below the BIN's minimum or when fees eat the amount. Whether the wallet can pay (3001) is the
 * debit's own check, in fundFromWallet: nothing that can fail comes between.
 */
function priceFunding(account: Account, amountMicros: number, minimalMicros: number, openFeeMicros: number) {
  if (amountMicros < minimalMicros) throw new DomainError('DEPOSIT_AMOUNT_TOO_SMALL');
  const priced = cardCredit(amountMicros, account.depositFeeRatePpm, openFeeMicros);
  if (priced.creditMicros <= 0) throw new DomainError('DEPOSIT_AMOUNT_TOO_SMALL');
  return priced;
}

interface Funding {
  accountId: string;
  ref: string;
  atMs: number;
  creditMicros: number;
  feeMicros: number;
}

/**
 * The wallet pays `credit + fee` (the amount asked): the credit to `to` (reason `reason`), the fee to the fee account
 * (`reason.fee`); a wallet that cannot is 3001.
 */
async function fundFromWallet(deps: Deps, f: Funding, to: TransferInput['credit'], reason: string): Promise<void> {
  const common = { accountId: f.accountId, ref: f.ref, atMs: f.atMs, debit: { kind: 'wallet' } as const };
  await transfers(
    deps,
    [
      { ...common, credit: to, amountMicros: f.creditMicros, reason },
      { ...common, credit: { kind: 'fee' }, amountMicros: f.feeMicros, reason: `${reason}.fee` },
    ],
    { short: 'ASSET_NOT_ENOUGH' },
  );
}

export interface CreateCardInput {
  amountMicros: number;
  binId?: string;
  alias?: string;
}

/**
 * card/create: issue from inventory, debit the wallet by the amount, credit the card net of fees, at once.
 * Checks in order: 4004, 4005, 4010, 4009, 8001, 3001 (a failure rolls back the inventory taken).
 */
/** A new card and the BIN it was issued on (its answer names the BIN's brand: read once, here). */
export interface CreatedCard {
  card: Card;
  bin: Bin;
}

export async function createCard(
  deps: Deps,
  account: Account,
  input: CreateCardInput,
  nowMs: number,
): Promise<CreatedCard> {
  assertInTransaction(deps.db, 'createCard');
  const bin = await getBin(deps, input.binId ?? account.defaultBinId);
  if (!bin.enabled) throw new DomainError('BIN_DISABLED');
  await takeFromInventory(deps, account.id, bin);
  const { creditMicros, feeMicros } = priceFunding(
    account,
    input.amountMicros,
    bin.minimalDepositMicros,
    bin.openFeeMicros,
  );
  const id = deps.ids.cardId(nowMs);
  const last4 = derivePan(deps.secret, id, bin.bin).slice(-4);
  const row = {
    id,
    account_id: account.id,
    bin_id: bin.id,
    // A label is the partner's text, but a card number or a key typed into it is not kept in clear (design section 2).
    alias: input.alias === undefined ? null : deps.redactor.text(input.alias),
    last4,
    open_fee_micros: bin.openFeeMicros,
    created_at_ms: nowMs,
  };
  await insertCard(deps.db, row);
  const funding = { accountId: account.id, ref: id, atMs: nowMs, creditMicros, feeMicros };
  await fundFromWallet(deps, funding, { kind: 'card', cardId: id }, 'card.create');
  await emitEvent(deps, account.id, nowMs, 'card.created', cardCreatedData({ cardId: id, binId: bin.id }));
  // What insertCard wrote, as a read would give it back (a new card is ACTIVE).
  return { card: toCard({ ...row, status: 'ACTIVE' }), bin };
}

/**
 * card/deposit: the USDT debit is synchronous; the card credit (net of the deposit fee, no open fee) settles
 * `topUpSettleSeconds` later on the account clock.
 */
export async function depositToCard(
  deps: Deps,
  account: Account,
  cardId: string,
  amountMicros: number,
  nowMs: number,
): Promise<void> {
  assertInTransaction(deps.db, 'depositToCard');
  const card = await getMutableCard(deps, account.id, cardId, nowMs);
  const bin = await getBin(deps, card.binId);
  const { creditMicros, feeMicros } = priceFunding(account, amountMicros, bin.minimalDepositMicros, 0);
  const id = deps.ids.internalId('topup');
  const settlesAt = nowMs + deps.config.topUpSettleSeconds * 1000;
  await insertTopUp(deps.db, {
    id,
    account_id: account.id,
    card_id: card.id,
    amount_micros: amountMicros,
    credit_micros: creditMicros,
    fee_micros: feeMicros,
    created_at_ms: nowMs,
    settles_at_ms: settlesAt,
  });
  const funding = { accountId: account.id, ref: id, atMs: nowMs, creditMicros, feeMicros };
  await fundFromWallet(deps, funding, { kind: 'settling' }, 'topup');
  await deps.jobs.schedule(deps.db, account.id, TOPUP_SETTLE_JOB, id, settlesAt);
}

/** Job: a settling top-up reaches the card. */
async function settleTopUp(deps: Deps, topUpId: string, nowMs: number): Promise<void> {
  const t = await settleTopUpRow(deps.db, topUpId, nowMs);
  if (!t) return;
  await transfer(deps, {
    accountId: t.account_id,
    debit: { kind: 'settling' },
    credit: { kind: 'card', cardId: t.card_id },
    amountMicros: t.credit_micros,
    reason: 'topup.settle',
    ref: topUpId,
    atMs: nowMs,
  });
}

/** card/freeze and card/unfreeze: a move to the state it is already in succeeds without change or event. */
export async function setFrozen(
  deps: Deps,
  accountId: string,
  cardId: string,
  frozen: boolean,
  nowMs: number,
): Promise<void> {
  assertInTransaction(deps.db, 'setFrozen');
  const card = await getMutableCard(deps, accountId, cardId, nowMs);
  const [from, to] = frozen ? (['ACTIVE', 'FROZEN'] as const) : (['FROZEN', 'ACTIVE'] as const);
  if (card.status !== from) return;
  await setCardStatus(deps.db, cardId, to);
  await emitEvent(deps, accountId, nowMs, frozen ? 'card.frozen' : 'card.unfrozen', cardChangedData(cardId));
}

/**
 * card/cancel: CANCELLING now; CANCELLED with the balance returned to the wallet `cancelSeconds` later. A card
 * below zero (a clearing left it in debt) has its debt paid from the USDT wallet now, or is refused with 3001.
 */
export async function cancelCard(deps: Deps, accountId: string, cardId: string, nowMs: number): Promise<void> {
  assertInTransaction(deps.db, 'cancelCard');
  await getMutableCard(deps, accountId, cardId, nowMs);
  if (await hasPendingAuthorisation(deps.db, cardId))
    throw new DomainError('REJECTED_HAVING_PENDING_ORDERS').withHint(await pendingAuthorisationsHint(deps, cardId));
  const debt = -Math.min(0, await balance(deps, accountId, 'card', cardId));
  if (debt > (await balance(deps, accountId, 'wallet'))) throw new DomainError('ASSET_NOT_ENOUGH');
  await transfer(deps, {
    accountId,
    debit: { kind: 'wallet' },
    credit: { kind: 'card', cardId },
    amountMicros: debt,
    reason: 'card.cancel.debt',
    ref: cardId,
    atMs: nowMs,
  });
  await markCardCancelling(deps.db, cardId);
  await deps.jobs.schedule(deps.db, accountId, CARD_CANCEL_JOB, cardId, nowMs + deps.config.cancelSeconds * 1000);
}

/** Job: the cancellation completes. */
async function finishCancel(deps: Deps, cardId: string, nowMs: number): Promise<void> {
  const accountId = await cancellingCardAccount(deps.db, cardId);
  if (!accountId) return;
  await markCardCancelled(deps.db, cardId);
  await transfer(deps, {
    accountId,
    debit: { kind: 'card', cardId },
    credit: { kind: 'wallet' },
    amountMicros: await balance(deps, accountId, 'card', cardId),
    reason: 'card.cancel.refund',
    ref: cardId,
    atMs: nowMs,
  });
  await emitEvent(deps, accountId, nowMs, 'card.cancelled', cardChangedData(cardId));
}

export function registerCardJobs(deps: Deps): void {
  deps.jobs.register(TOPUP_SETTLE_JOB, { run: (deps, job) => settleTopUp(deps, job.ref, job.dueAtMs) });
  deps.jobs.register(CARD_CANCEL_JOB, { run: (deps, job) => finishCancel(deps, job.ref, job.dueAtMs) });
}
