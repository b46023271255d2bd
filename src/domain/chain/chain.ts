import {
  depositRow,
  depositRowsOf,
  insertDeposit,
  markDepositCredited,
  walletAndPendingMicros,
  type DepositRow,
} from '../../store/chain-deposits.js';
import { assertInTransaction } from '../../store/db.js';
import type { Deps } from '../kernel/deps.js';
import { DomainError, invalidField } from '../kernel/errors.js';
import { assertRoomToEnter, ensureDepositAddress } from '../accounts/accounts.js';
import { catchUp } from '../kernel/clock.js';
import { generateTronAddress, isTronAddress } from './deposit-address.js';
import { ledgerId, transfer } from '../ledger/ledger.js';
import { formatMicros } from '../kernel/money.js';

// Simulated TRC20 USDT deposits. A transfer is seen on chain at once (the wallet's frozenAmount), gains one
// confirmation per TRON block (3 s of account time) and credits the wallet at the 19th, through the `chain`
// source ledger account, by a job on the account clock.

const CONFIRMATIONS_REQUIRED = 19;
const BLOCK_MS = 3000;
const CHAIN_CONFIRM_JOB = 'chain.confirm';

export interface ChainTransferInput {
  txId: string;
  address: string;
  fromAddress: string;
  amountMicros: number;
  confirmations: number;
}

function confirmationsAt(d: DepositRow, nowMs: number): number {
  const blocks = Math.floor(Math.max(0, nowMs - d.created_at_ms) / BLOCK_MS);
  return Math.min(CONFIRMATIONS_REQUIRED, d.initial_confirmations + blocks);
}

/** A deposit as chain/deposits and chain/transfer show it. */
function depositView(d: DepositRow, nowMs: number) {
  const confirmed = d.credited_at_ms !== null;
  return {
    txId: d.tx_id,
    network: 'TRX',
    currency: 'USDT',
    fromAddress: d.from_address,
    address: d.address,
    amount: formatMicros(d.amount_micros),
    confirmations: confirmed ? Math.max(CONFIRMATIONS_REQUIRED, confirmationsAt(d, nowMs)) : confirmationsAt(d, nowMs),
    status: confirmed ? 'CONFIRMED' : 'PENDING',
    seenAt: new Date(d.created_at_ms).toISOString(),
    confirmedAt: confirmed ? new Date(d.credited_at_ms!).toISOString() : null,
  };
}

/**
 * sandbox/v1/chain/transfer: a TRC20 USDT transfer to the account's deposit address (made now if it has none yet),
 * from `fromAddress` or a fresh address, recorded at the account's caught-up "now". The addresses are awaited before
 * the transaction that records the transfer.
 */
export async function transferOnChain(
  deps: Deps,
  accountId: string,
  given: { amountMicros: number; confirmations: number; txId?: string; fromAddress?: string },
) {
  // The schema checks the alphabet and length; only the base58check checksum needs the decoder.
  if (given.fromAddress !== undefined && !(await isTronAddress(given.fromAddress)))
    throw invalidField('fromAddress must be a TRON base58check address');
  const address = await ensureDepositAddress(deps, accountId);
  if (!address) throw new DomainError('ADDRESS_ERROR');
  const input = {
    txId: given.txId ?? deps.ids.hex(32),
    address,
    fromAddress: given.fromAddress ?? (await generateTronAddress()),
    amountMicros: given.amountMicros,
    confirmations: given.confirmations,
  };
  const nowMs = await catchUp(deps, accountId);
  return await deps.transactions.run((deps) => recordTransfer(deps, accountId, input, nowMs));
}

/**
 * Records a transfer seen on chain; with 19 confirmations already it credits at once. In the caller's transaction.
 * @internal exported for test/domain/ledger-commands.test.ts
 */
export async function recordTransfer(deps: Deps, accountId: string, input: ChainTransferInput, nowMs: number) {
  assertInTransaction(deps.db, 'recordTransfer');
  const txId = input.txId.toLowerCase();
  if (await depositRow(deps.db, accountId, txId)) throw new DomainError('TX_ID_ON_CHAIN');
  const missing = Math.max(0, CONFIRMATIONS_REQUIRED - input.confirmations);
  const creditsAt = nowMs + missing * BLOCK_MS;
  await assertRoomToEnter(deps, accountId, input.amountMicros);
  await insertDeposit(deps.db, {
    tx_id: txId,
    account_id: accountId,
    address: input.address,
    from_address: input.fromAddress,
    amount_micros: input.amountMicros,
    initial_confirmations: input.confirmations,
    created_at_ms: nowMs,
    credits_at_ms: creditsAt,
  });
  if (missing === 0) await creditDeposit(deps, accountId, txId, nowMs);
  else await deps.jobs.schedule(deps.db, accountId, CHAIN_CONFIRM_JOB, txId, creditsAt);
  return depositView((await depositRow(deps.db, accountId, txId))!, nowMs);
}

/** The 19th confirmation: the deposit leaves frozenAmount and credits availableAmount. */
async function creditDeposit(deps: Deps, accountId: string, txId: string, nowMs: number): Promise<void> {
  const d = await depositRow(deps.db, accountId, txId);
  if (!d || d.credited_at_ms !== null) return;
  await markDepositCredited(deps.db, accountId, txId, nowMs);
  await transfer(deps, {
    accountId: d.account_id,
    debit: { kind: 'chain' },
    credit: { kind: 'wallet' },
    amountMicros: d.amount_micros,
    reason: 'chain.deposit',
    ref: txId,
    atMs: nowMs,
  });
}

/** Deposits of the account, newest first. */
export async function listDeposits(deps: Deps, accountId: string, nowMs: number) {
  return (await depositRowsOf(deps.db, accountId)).map((d) => depositView(d, nowMs));
}

/** The wallet's balance, and USDT seen on chain but not yet confirmed (the wallet's frozenAmount), in one read. */
export async function walletAsset(deps: Deps, accountId: string): Promise<{ available: number; pending: number }> {
  return await walletAndPendingMicros(deps.db, accountId, ledgerId(accountId, 'wallet'));
}

export function registerChain(deps: Deps): void {
  deps.jobs.register(CHAIN_CONFIRM_JOB, {
    run: (deps, job) => creditDeposit(deps, job.accountId, job.ref, job.dueAtMs),
  });
}
