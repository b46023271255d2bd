import { childrenOf, type ChildRow } from '../../store/account-purge.js';
import { tenantRequestLogBytes } from '../../store/request-log.js';
import { tenantOf } from './account.js';
import { findAccount } from './accounts.js';
import { accountForKey } from './api-keys.js';
import type { Deps } from '../kernel/deps.js';

// A tenant is an account and its live child sandboxes: the unit of every hosted budget (docs/hosted.md).

export { tenantOf };

/** The parent's children not yet expired (nor ended: an ended child is expired, its rows going). */
export async function liveChildren(deps: Pick<Deps, 'db' | 'wallClock'>, parentId: string): Promise<ChildRow[]> {
  const now = deps.wallClock();
  return (await childrenOf(deps.db, parentId)).filter((c) => c.expires_at_ms > now);
}

/** What the tenant keeps in the database. */
export async function tenantStorage(
  deps: Deps,
  tenantId: string,
): Promise<{ childSandboxes: number; requestLogBytes: number }> {
  return {
    childSandboxes: (await liveChildren(deps, tenantId)).length,
    requestLogBytes: await tenantRequestLogBytes(deps.db, tenantId),
  };
}

/** The tenant of an active API key, or undefined for an unknown or revoked key (or one whose account is gone). */
export async function tenantOfKey(deps: Deps, apiKey: string): Promise<string | undefined> {
  const found = await accountForKey(deps, apiKey);
  const account = found && (await findAccount(deps, found.accountId));
  return account && tenantOf(account);
}
