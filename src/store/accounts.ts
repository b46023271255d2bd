import { soleWriter, type Db, type Store } from './seam.js';

// SQL of accounts: the account row, its clock columns (the account clock moves them) and the bootstrap account's
// marker in meta.

export interface AccountRow {
  id: string;
  name: string;
  deposit_fee_rate_ppm: number;
  require_idempotency_key: number;
  deposit_address_mode: 'auto' | 'none' | 'fixed';
  deposit_address: string | null;
  default_bin_id: string;
  created_at_ms: number;
  parent_account_id: string | null;
  expires_at_ms: number | null;
  /** 0: the account delivers nothing (a child sandbox made so). */
  deliveries: number;
}

/** The account clock's columns: wall time plus an offset, or frozen at an instant. */
export interface ClockRow {
  clock_offset_ms: number;
  clock_frozen_at_ms: number | null;
}

export type FullAccountRow = AccountRow & ClockRow;

/** The columns a new account is written with (the rest take their defaults). */
export type NewAccountRow = Omit<AccountRow, 'parent_account_id' | 'expires_at_ms'>;

/** The account other than `exceptId` holding a deposit address, if any. */
export async function accountHoldingAddress(
  db: Db,
  address: string,
  exceptId: string,
): Promise<{ id: string } | undefined> {
  return (await db.get('SELECT id FROM accounts WHERE deposit_address = ? AND id != ?', [address, exceptId])) as
    { id: string } | undefined;
}

export async function insertAccount(db: Db, r: NewAccountRow): Promise<void> {
  await db.run(
    `INSERT INTO accounts (id, name, deposit_fee_rate_ppm, require_idempotency_key, deposit_address_mode,
       deposit_address, default_bin_id, created_at_ms, deliveries) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      r.id,
      r.name,
      r.deposit_fee_rate_ppm,
      r.require_idempotency_key,
      r.deposit_address_mode,
      r.deposit_address,
      r.default_bin_id,
      r.created_at_ms,
      r.deliveries,
    ],
  );
}

// No cache in front of this read: it gained nothing measurable at the request level (bench/code-figures.md), and it
// made every writer of the row remember to invalidate it.
/** The account by id, clock columns included: read on every request. */
export async function accountRow(db: Db, id: string): Promise<FullAccountRow | undefined> {
  return (await db.get('SELECT * FROM accounts WHERE id = ?', [id])) as FullAccountRow | undefined;
}

export type AccountSettingsRow = Pick<
  AccountRow,
  'name' | 'deposit_fee_rate_ppm' | 'require_idempotency_key' | 'deposit_address_mode' | 'deposit_address'
>;

export async function updateAccountSettings(db: Db, id: string, r: AccountSettingsRow): Promise<void> {
  await db.run(
    `UPDATE accounts SET name = ?, deposit_fee_rate_ppm = ?, require_idempotency_key = ?, deposit_address_mode = ?,
       deposit_address = ? WHERE id = ?`,
    [r.name, r.deposit_fee_rate_ppm, r.require_idempotency_key, r.deposit_address_mode, r.deposit_address, id],
  );
}

/** Records a generated deposit address unless one was set meanwhile. */
export async function setGeneratedAddress(db: Db, id: string, address: string): Promise<void> {
  await db.run(
    "UPDATE accounts SET deposit_address = ? WHERE id = ? AND deposit_address_mode = 'auto' AND deposit_address IS NULL",
    [address, id],
  );
}

/**
 * The rows a request authenticates with (its key in api_keys, its account) change rarely (a clock moved, settings
 * patched, a key revoked, a child sandbox deleted) and are read by every request. This number moves on every UPDATE
 * or DELETE of one of them made through this store (store/seam.ts, `watchWrites`), so what was read at a version is
 * still what the tables hold while the version has not moved: nobody has to remember to forget anything. A
 * rolled-back change moves it too, which only costs a read. It sees this process's changes only: on SQLite the server
 * owns its database file (docs/speed.md).
 */
export class AccountRowWatch {
  /** Moves on every change to an account or key row made through the watched store. */
  version = 0;
  /**
   * Whether the version sees every change: false on a store other instances write too (a clock another instance
   * advanced moves no version here), where a row read before is never answered again without reading it.
   */
  constructor(readonly seesEveryChange: boolean) {}

  /** Whether rows read at `version` are still what the tables hold. */
  unchangedSince(version: number): boolean {
    return this.seesEveryChange && version === this.version;
  }
}

/** Starts counting changes to account and key rows through this store (once; the wiring does it at start). */
export function watchAccountRows(store: Store): AccountRowWatch {
  const watch = new AccountRowWatch(soleWriter(store));
  store.watchWrites(['accounts', 'api_keys'], () => watch.version++);
  return watch;
}

/** The instant a frozen clock shows; null for a running clock, undefined for an unknown account. */
export async function clockFrozenAt(db: Db, id: string): Promise<number | null | undefined> {
  return (await db.value('SELECT clock_frozen_at_ms FROM accounts WHERE id = ?', [id])) as number | null | undefined;
}

export async function freezeClock(db: Db, id: string, atMs: number): Promise<void> {
  await db.run('UPDATE accounts SET clock_frozen_at_ms = ? WHERE id = ?', [atMs, id]);
}

export async function runClock(db: Db, id: string, offsetMs: number): Promise<void> {
  await db.run('UPDATE accounts SET clock_frozen_at_ms = NULL, clock_offset_ms = ? WHERE id = ?', [offsetMs, id]);
}

/** Moves a running or a frozen clock forward by `deltaMs`. */
export async function shiftClockBy(db: Db, id: string, deltaMs: number): Promise<void> {
  await db.run(
    `UPDATE accounts SET clock_offset_ms = clock_offset_ms + ?,
       clock_frozen_at_ms = CASE WHEN clock_frozen_at_ms IS NULL THEN NULL ELSE clock_frozen_at_ms + ? END
     WHERE id = ?`,
    [deltaMs, deltaMs, id],
  );
}

/** The account made at first start without SANDBOX_API_KEY, remembered so a restart reuses it. */
export async function bootstrapAccountId(db: Db): Promise<string | undefined> {
  return (await db.value("SELECT value FROM meta WHERE key = 'bootstrap_account'")) as string | undefined;
}

export async function rememberBootstrapAccount(db: Db, id: string): Promise<void> {
  await db.run(
    "INSERT INTO meta (key, value) VALUES ('bootstrap_account', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    [id],
  );
}
