import {
  insertTransfer,
  ledgerBalance,
  ledgerBalances,
  moveLedgerAccount,
  moveLedgerAccountsRecorded,
  type TransferRow,
} from '../../store/ledger.js';
import { assertMicros, formatMicros } from '../kernel/money.js';
import type { Deps } from '../kernel/deps.js';
import { DomainError, type ErrorName } from '../kernel/errors.js';

// Double-entry and append-only: every movement is one transfer row from a debit ledger account to a credit
// ledger account; a balance (credits - debits) is a counter updated in the same transaction. Source accounts
// (seed, chain, goodwill) go negative as money enters the system; every other account must never go below zero,
// except a card's available balance, which a clearing alone may overdraw (docs/design.md section 15: the network
// has paid the merchant, so a clearing is never declined, and what the card cannot cover is its debt).

export type LedgerKind = 'seed' | 'chain' | 'goodwill' | 'wallet' | 'settling' | 'fee' | 'merchant' | 'card' | 'held';

/** `goodwill`: credits the network grants with no purchase behind them (a refund with no purchase). */
const SOURCES: ReadonlySet<LedgerKind> = new Set(['seed', 'chain', 'goodwill']);

/** Every kind, and what one ledger account of it belongs to: the partner account, or one card. */
export const LEDGER_KINDS: Readonly<Record<LedgerKind, 'account' | 'card'>> = {
  seed: 'account',
  chain: 'account',
  goodwill: 'account',
  wallet: 'account',
  settling: 'account',
  fee: 'account',
  merchant: 'account',
  card: 'card',
  held: 'card',
};

/** Whether a balance of this kind may be below zero: a source (money entering), or a card (a clearing's debt). */
export const mayBeNegative = (kind: LedgerKind): boolean => SOURCES.has(kind) || kind === 'card';

/**
 * The most any one ledger account may hold, above zero or below (5,000,000,000 USDT in micro-units): every balance and
 * every amount a read shows stays an exact JavaScript integer, far below 2^53 (9.007e15). Money entering an account
 * has a cap of the same size (accounts.ts); a card's debt and what its clearings paid are bounded here, where every
 * movement passes, so no path (a force post, a clearing for more, a refund, a settlement) can go round it.
 */
export const MAX_BALANCE_MICROS = 5_000_000_000 * 1_000_000;

/** What a partner sees of each ledger account, for the refusal that names it. */
const SEEN_AS: Readonly<Record<LedgerKind, string>> = {
  seed: 'the USDT seeded into this account',
  chain: 'the USDT sent to this account on chain',
  goodwill: 'the refunds with no purchase this account was credited',
  wallet: 'the USDT balance',
  settling: 'the top-ups settling',
  fee: 'the fees this account paid',
  merchant: "what this account's cards have spent",
  card: "the card's available balance",
  held: "the card's frozen amount",
};

/** Refuses (400, naming the balance and the bound) a movement that would take a balance past MAX_BALANCE_MICROS. */
function assertWithinBound(kind: LedgerKind, after: number): void {
  if (Math.abs(after) <= MAX_BALANCE_MICROS) return;
  const bound = formatMicros(after < 0 ? -MAX_BALANCE_MICROS : MAX_BALANCE_MICROS);
  throw new DomainError(
    'BALANCE_OUT_OF_BOUNDS',
    `amount would take ${SEEN_AS[kind]} ${after < 0 ? 'below' : 'past'} ${bound}, the most any balance of the ` +
      'sandbox holds either way (so every amount stays exact); reset the account',
  );
}

/** The ledger account of a kind: per card for `card` and `held`, per partner account otherwise. */
export function ledgerId(accountId: string, kind: LedgerKind, cardId?: string): string {
  if (kind === 'card' || kind === 'held') {
    if (!cardId) throw new Error(`${kind} ledger account needs a card`);
    return `${kind}:${cardId}`;
  }
  return `${kind}:${accountId}`;
}

export interface TransferInput {
  accountId: string;
  debit: { kind: LedgerKind; cardId?: string };
  credit: { kind: LedgerKind; cardId?: string };
  amountMicros: number;
  /** What the movement is (`card.create`, `topup.settle`, `auth.hold`, ...). */
  reason: string;
  ref?: string;
  atMs: number;
  /** A clearing's debit of a card: it may take the card's available balance below zero. */
  overdraw?: boolean;
}

/** Posts one transfer; must run inside the caller's transaction. A zero amount posts nothing. */
export async function transfer(deps: Pick<Deps, 'db'>, t: TransferInput): Promise<void> {
  await transfers(deps, [t]);
}

/** Refuses a transfer no caller may ask for; answers whether it moves anything (a zero amount does not). */
function postsAnything(db: Deps['db'], t: TransferInput): boolean {
  assertMicros(t.amountMicros);
  if (t.amountMicros < 0) throw new Error('transfer amount must not be negative');
  if (t.amountMicros === 0) return false;
  if (!db.inTransaction) throw new Error('ledger transfer outside a transaction');
  if (t.overdraw && t.debit.kind !== 'card') throw new Error(`only a card may be overdrawn (${t.reason})`);
  return true;
}

/**
 * What a balance that would go below zero is: the partner's refusal the caller names (`short`: the wallet cannot
 * pay, checked by the move itself rather than by a read before it), or else a broken invariant.
 */
function belowZero(kind: LedgerKind, reasons: string, short: ErrorName | undefined): Error {
  if (short !== undefined) return new DomainError(short);
  return new Error(`ledger invariant: ${kind} balance would go negative (${reasons})`);
}

/** Posts a transfer `postsAnything` accepted. */
async function post(db: Deps['db'], t: TransferInput, short?: ErrorName): Promise<void> {
  // Each side's counter moves (its ledger account made on first use), then the transfer row naming both.
  const debitId = ledgerId(t.accountId, t.debit.kind, t.debit.cardId);
  const after = await moveLedgerAccount(db, debitId, t.accountId, t.debit.kind, -t.amountMicros);
  if (after < 0 && !SOURCES.has(t.debit.kind) && !t.overdraw) throw belowZero(t.debit.kind, t.reason, short);
  // Thrown inside the caller's transaction: the counter just moved is rolled back with everything else.
  assertWithinBound(t.debit.kind, after);
  const creditId = ledgerId(t.accountId, t.credit.kind, t.credit.cardId);
  assertWithinBound(t.credit.kind, await moveLedgerAccount(db, creditId, t.accountId, t.credit.kind, t.amountMicros));
  await insertTransfer(db, transferRow(t, debitId, creditId));
}

/**
 * Posts transfers as `transfer` would post each in turn, in one statement on PostgreSQL and two on SQLite where that
 * took three each: every counter moved at once, with every transfer row. Only when each balance moves one way among
 * them (no ledger account both debited and credited, no card both overdrawn and not): then its final value is the
 * furthest it goes, and checking it is checking every step. Otherwise they go one by one.
 */
export async function transfers(
  deps: Pick<Deps, 'db'>,
  list: readonly TransferInput[],
  { short }: { short?: ErrorName } = {},
): Promise<void> {
  const { db } = deps;
  const posted = list.filter((t) => postsAnything(db, t));
  if (posted.length === 0) return;
  const together = oneWay(posted);
  if (!together) {
    for (const t of posted) await post(db, t, short);
    return;
  }
  const after = new Map(await moveLedgerAccountsRecorded(db, [...together.moves.values()], together.rows));
  for (const move of together.moves.values()) {
    const balance = after.get(move.id)!;
    if (balance < 0 && together.floored.has(move.id)) {
      throw belowZero(move.kind, together.rows.map((r) => r.reason).join(', '), short);
    }
    assertWithinBound(move.kind, balance);
  }
}

interface Move {
  id: string;
  accountId: string;
  kind: LedgerKind;
  deltaMicros: number;
}

/** The transfers' net moves, floored accounts and rows; undefined when some balance would move both ways. */
function oneWay(
  posted: readonly TransferInput[],
): { moves: Map<string, Move>; floored: Set<string>; rows: TransferRow[] } | undefined {
  const moves = new Map<string, Move>();
  // The debited accounts that must not go below zero (no source, no clearing's overdraft), and the overdrawn ones.
  const floored = new Set<string>();
  const overdrawn = new Set<string>();
  const rows: TransferRow[] = [];
  for (const t of posted) {
    const debitId = ledgerId(t.accountId, t.debit.kind, t.debit.cardId);
    const creditId = ledgerId(t.accountId, t.credit.kind, t.credit.cardId);
    for (const [id, kind, delta] of [
      [debitId, t.debit.kind, -t.amountMicros],
      [creditId, t.credit.kind, t.amountMicros],
    ] as const) {
      const move = moves.get(id) ?? { id, accountId: t.accountId, kind, deltaMicros: 0 };
      if (Math.sign(move.deltaMicros) === -Math.sign(delta)) return undefined;
      move.deltaMicros += delta;
      moves.set(id, move);
    }
    if (t.overdraw) overdrawn.add(debitId);
    else if (!SOURCES.has(t.debit.kind)) floored.add(debitId);
    if (floored.has(debitId) && overdrawn.has(debitId)) return undefined;
    rows.push(transferRow(t, debitId, creditId));
  }
  return { moves, floored, rows };
}

/** The row that records a transfer between two ledger accounts. */
function transferRow(t: TransferInput, debitId: string, creditId: string): TransferRow {
  return {
    account_id: t.accountId,
    debit_id: debitId,
    credit_id: creditId,
    amount_micros: t.amountMicros,
    reason: t.reason,
    ref: t.ref ?? null,
    created_at_ms: t.atMs,
  };
}

/** Balance of one ledger account (0 when it has never moved). */
export async function balance(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  kind: LedgerKind,
  cardId?: string,
): Promise<number> {
  const { db } = deps;
  return (await ledgerBalance(db, ledgerId(accountId, kind, cardId))) ?? 0;
}

/** Balances of many ledger accounts in one statement (0 for one that never moved). */
export async function balancesOf(deps: Pick<Deps, 'db'>, ledgerIds: readonly string[]): Promise<Map<string, number>> {
  const { db } = deps;
  const rows = await ledgerBalances(db, ledgerIds);
  const out = new Map<string, number>(ledgerIds.map((id) => [id, 0]));
  for (const [id, micros] of rows) out.set(id, micros);
  return out;
}
