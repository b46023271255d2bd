import { findAccount, storeGeneratedAddress } from '../domain/accounts.js';
import { generateTronAddress } from '../domain/deposit-address.js';
import type { ServerDeps } from '../server-deps.js';
import { transact } from './command.js';

/**
 * The account's deposit address, generated on first need when the account is in 'auto' mode. Generating awaits
 * tronweb, so it happens before the (synchronous) transaction that stores it.
 */
export async function ensureDepositAddress(deps: ServerDeps, accountId: string): Promise<string | null> {
  const account = findAccount(deps, accountId);
  if (!account || account.depositAddressMode === 'none') return null;
  if (account.depositAddress) return account.depositAddress;
  const generated = await generateTronAddress();
  transact(deps, () => storeGeneratedAddress(deps, accountId, generated));
  return findAccount(deps, accountId)?.depositAddress ?? null;
}
