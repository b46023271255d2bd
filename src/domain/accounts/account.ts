import type { AccountRow } from '../../store/accounts.js';

// An account as the domain sees it: a type of its own, apart from the commands on accounts, so that what the
// server keeps per instance (domain/kernel/instance-state.ts) can name it without importing them.

export interface Account {
  id: string;
  name: string;
  depositFeeRatePpm: number;
  requireIdempotencyKey: boolean;
  depositAddressMode: 'auto' | 'none' | 'fixed';
  depositAddress: string | null;
  defaultBinId: string;
  createdAtMs: number;
  /** Set on a child sandbox (docs/design.md section 12): its parent, and when it expires (wall time). */
  parentAccountId: string | null;
  expiresAtMs: number | null;
  /** False: the account delivers nothing, no webhook attempt and no readiness delivery (a child made so). */
  delivers: boolean;
}

/** The account a row of the accounts table holds. */
export const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  depositFeeRatePpm: r.deposit_fee_rate_ppm,
  requireIdempotencyKey: r.require_idempotency_key === 1,
  depositAddressMode: r.deposit_address_mode,
  depositAddress: r.deposit_address,
  defaultBinId: r.default_bin_id,
  createdAtMs: r.created_at_ms,
  parentAccountId: r.parent_account_id,
  expiresAtMs: r.expires_at_ms,
  delivers: r.deliveries !== 0,
});

/** The tenant an account belongs to: the account itself, or its parent for a child sandbox (docs/hosted.md). */
export function tenantOf(account: Pick<Account, 'id' | 'parentAccountId'>): string {
  return account.parentAccountId ?? account.id;
}
