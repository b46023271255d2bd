import {
  accountHoldingAddress,
  accountRow,
  insertAccount,
  setGeneratedAddress,
  updateAccountSettings,
} from '../../store/accounts.js';
import { pendingDepositsMicros } from '../../store/chain-deposits.js';
import { assertInTransaction } from '../../store/db.js';
import { DEFAULT_BIN_ID } from '../cards/bins.js';
import type { Deps } from '../kernel/deps.js';
import { generateTronAddress } from '../chain/deposit-address.js';
import { DomainError } from '../kernel/errors.js';
import { balance, MAX_BALANCE_MICROS, transfer } from '../ledger/ledger.js';

import { toAccount, type Account } from './account.js';

export { toAccount, type Account };

export interface NewAccount {
  /** Given only when an account is loaded from a snapshot with its id kept; otherwise a new one. */
  id?: string;
  name?: string;
  depositFeeRatePpm: number;
  requireIdempotencyKey?: boolean;
  /** 'auto' makes a TRON address (lazily, see deposit-address.ts), null means none, else a fixed address. */
  depositAddress: 'auto' | null | string;
  balanceMicros?: number;
  /** False: the account delivers nothing (default true). */
  delivers?: boolean;
}

/** A deposit address names one account (a chain transfer to it must credit exactly one): a taken one is a 400. */
async function assertAddressFree(deps: Deps, address: string, accountId: string): Promise<void> {
  const holder = await accountHoldingAddress(deps.db, address, accountId);
  if (holder !== undefined) throw new DomainError('DEPOSIT_ADDRESS_IN_USE');
}

/** Creates an account (its clock starts running at wall time) and seeds its balance. */
export async function createAccount(deps: Deps, input: NewAccount): Promise<Account> {
  assertInTransaction(deps.db, 'createAccount');
  const id = input.id ?? deps.ids.accountId();
  const now = deps.wallClock();
  const mode = input.depositAddress === 'auto' ? 'auto' : input.depositAddress === null ? 'none' : 'fixed';
  if (mode === 'fixed') await assertAddressFree(deps, input.depositAddress as string, id);
  await insertAccount(deps.db, {
    id,
    name: input.name ?? id,
    deposit_fee_rate_ppm: input.depositFeeRatePpm,
    require_idempotency_key: input.requireIdempotencyKey ? 1 : 0,
    deposit_address_mode: mode,
    deposit_address: mode === 'fixed' ? (input.depositAddress as string) : null,
    default_bin_id: DEFAULT_BIN_ID,
    created_at_ms: now,
    deliveries: input.delivers === false ? 0 : 1,
  });
  if (input.balanceMicros) await seedBalance(deps, id, input.balanceMicros, now);
  return getAccount(deps, id);
}

/**
 * The most USDT that may enter one account in total (5,000,000,000), by every way money enters it from outside its
 * books: seeds, chain deposits (pending ones included) and refunds with no purchase behind them (goodwill). What
 * else moves is a transfer between the account's own ledger accounts, each held within the same bound either way
 * (ledger.ts), so every balance a read shows is an exact JavaScript integer of micro-units. Without it, twelve chain
 * transfers of 1e9 made assetList answer 500 for good, and so did ten goodwill refunds of 1e9 card/asset.
 */
export const MAX_ENTERED_MICROS = MAX_BALANCE_MICROS;

/** Refuses an amount that would take the money entered into the account past MAX_ENTERED_MICROS. */
export async function assertRoomToEnter(deps: Deps, accountId: string, amountMicros: number): Promise<void> {
  const entered = -(
    (await balance(deps, accountId, 'seed')) +
    (await balance(deps, accountId, 'chain')) +
    (await balance(deps, accountId, 'goodwill'))
  );
  const pending = await pendingDepositsMicros(deps.db, accountId);
  if (entered + pending + amountMicros > MAX_ENTERED_MICROS) throw new DomainError('BALANCE_LIMIT_EXCEEDED');
}

/** Credits the USDT balance from outside the system (the sandbox's seed). */
/** Credits the USDT wallet at once; answers its balance after. */
export async function seedBalance(deps: Deps, accountId: string, amountMicros: number, atMs: number): Promise<number> {
  assertInTransaction(deps.db, 'seedBalance');
  await assertRoomToEnter(deps, accountId, amountMicros);
  await transfer(deps, {
    accountId,
    debit: { kind: 'seed' },
    credit: { kind: 'wallet' },
    amountMicros,
    reason: 'sandbox.seed',
    atMs,
  });
  return await balance(deps, accountId, 'wallet');
}

export async function findAccount(deps: Deps, id: string): Promise<Account | undefined> {
  const row = await accountRow(deps.db, id);
  return row && toAccount(row);
}

export async function getAccount(deps: Deps, id: string): Promise<Account> {
  const account = await findAccount(deps, id);
  if (!account) throw new DomainError('ACCOUNT_NOT_FOUND');
  return account;
}

export interface AccountPatch {
  name?: string;
  depositFeeRatePpm?: number;
  requireIdempotencyKey?: boolean;
  depositAddress?: 'auto' | null | string;
}

export async function updateAccount(deps: Deps, id: string, patch: AccountPatch): Promise<Account> {
  assertInTransaction(deps.db, 'updateAccount');
  const current = await getAccount(deps, id);
  const next = { ...current };
  if (patch.name !== undefined) next.name = patch.name;
  if (patch.depositFeeRatePpm !== undefined) next.depositFeeRatePpm = patch.depositFeeRatePpm;
  if (patch.requireIdempotencyKey !== undefined) next.requireIdempotencyKey = patch.requireIdempotencyKey;
  if (patch.depositAddress !== undefined) {
    const a = patch.depositAddress;
    next.depositAddressMode = a === 'auto' ? 'auto' : a === null ? 'none' : 'fixed';
    next.depositAddress = a === 'auto' ? (current.depositAddressMode === 'auto' ? current.depositAddress : null) : a;
    if (next.depositAddressMode === 'fixed') await assertAddressFree(deps, next.depositAddress as string, id);
  }
  await updateAccountSettings(deps.db, id, {
    name: next.name,
    deposit_fee_rate_ppm: next.depositFeeRatePpm,
    require_idempotency_key: next.requireIdempotencyKey ? 1 : 0,
    deposit_address_mode: next.depositAddressMode,
    deposit_address: next.depositAddress,
  });
  return getAccount(deps, id);
}

/** Records the generated deposit address unless one was set meanwhile. */
async function storeGeneratedAddress(deps: Deps, id: string, address: string): Promise<void> {
  assertInTransaction(deps.db, 'storeGeneratedAddress');
  await setGeneratedAddress(deps.db, id, address);
}

/**
 * The account's deposit address, generated on first need when the account is in 'auto' mode. Generating awaits
 * tronweb, so it happens before the transaction that stores it, which this function opens itself (the one domain
 * function that must await between reading and writing).
 */
export async function ensureDepositAddress(deps: Deps, accountId: string): Promise<string | null> {
  const account = await findAccount(deps, accountId);
  if (!account || account.depositAddressMode === 'none') return null;
  if (account.depositAddress) return account.depositAddress;
  const generated = await generateTronAddress();
  await deps.transactions.run((deps) => storeGeneratedAddress(deps, accountId, generated));
  return (await findAccount(deps, accountId))?.depositAddress ?? null;
}
