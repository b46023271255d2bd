import { sql, type Db } from './db.js';

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
export function accountHoldingAddress(db: Db, address: string, exceptId: string): { id: string } | undefined {
  return sql(db, 'SELECT id FROM accounts WHERE deposit_address = ? AND id != ?').get(address, exceptId) as
    { id: string } | undefined;
}

export function insertAccount(db: Db, r: NewAccountRow): void {
  sql(
    db,
    `INSERT INTO accounts (id, name, deposit_fee_rate_ppm, require_idempotency_key, deposit_address_mode,
       deposit_address, default_bin_id, created_at_ms, deliveries) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    r.id,
    r.name,
    r.deposit_fee_rate_ppm,
    r.require_idempotency_key,
    r.deposit_address_mode,
    r.deposit_address,
    r.default_bin_id,
    r.created_at_ms,
    r.deliveries,
  );
}

// No cache in front of this read: it gained nothing measurable at the request level (bench/code-figures.md), and it
// made every writer of the row remember to invalidate it.
/** The account by id, clock columns included: read on every request. */
export function accountRow(db: Db, id: string): FullAccountRow | undefined {
  return sql(db, 'SELECT * FROM accounts WHERE id = ?').get(id) as FullAccountRow | undefined;
}

export type AccountSettingsRow = Pick<
  AccountRow,
  'name' | 'deposit_fee_rate_ppm' | 'require_idempotency_key' | 'deposit_address_mode' | 'deposit_address'
>;

export function updateAccountSettings(db: Db, id: string, r: AccountSettingsRow): void {
  sql(
    db,
    `UPDATE accounts SET name = ?, deposit_fee_rate_ppm = ?, require_idempotency_key = ?, deposit_address_mode = ?,
       deposit_address = ? WHERE id = ?`,
  ).run(r.name, r.deposit_fee_rate_ppm, r.require_idempotency_key, r.deposit_address_mode, r.deposit_address, id);
}

/** Records a generated deposit address unless one was set meanwhile. */
export function setGeneratedAddress(db: Db, id: string, address: string): void {
  sql(
    db,
    "UPDATE accounts SET deposit_address = ? WHERE id = ? AND deposit_address_mode = 'auto' AND deposit_address IS NULL",
  ).run(address, id);
}

/**
 * The rows a request authenticates with (its key in api_keys, its account) change rarely (a clock moved, settings
 * patched, a key revoked, a child sandbox deleted) and are read by every request. This number moves on every UPDATE
 * or DELETE of one of them made through this connection (temporary triggers call back into JavaScript), so what was
 * read at a version is still what the tables hold while the version has not moved: nobody has to remember to forget
 * anything. A rolled-back change moves it too, which only costs a read. It sees this connection only: the server owns
 * its database file (docs/speed.md).
 */
export class AccountRowWatch {
  /** Moves on every change to an account or key row made through the watched connection. */
  version = 0;
}

/** Starts counting changes to account and key rows on this connection (once; the wiring does it at start). */
export function watchAccountRows(db: Db): AccountRowWatch {
  const watch = new AccountRowWatch();
  db.function('sandbox_account_row_changed', { deterministic: false }, () => {
    watch.version++;
    return null;
  });
  for (const table of ['accounts', 'api_keys']) {
    for (const event of ['UPDATE', 'DELETE']) {
      db.exec(
        `CREATE TEMP TRIGGER ${table}_${event.toLowerCase()}_seen AFTER ${event} ON main.${table}
           BEGIN SELECT sandbox_account_row_changed(); END`,
      );
    }
  }
  return watch;
}

/** The instant a frozen clock shows; null for a running clock, undefined for an unknown account. */
export function clockFrozenAt(db: Db, id: string): number | null | undefined {
  return sql(db, 'SELECT clock_frozen_at_ms FROM accounts WHERE id = ?').pluck().get(id) as number | null | undefined;
}

export function freezeClock(db: Db, id: string, atMs: number): void {
  sql(db, 'UPDATE accounts SET clock_frozen_at_ms = ? WHERE id = ?').run(atMs, id);
}

export function runClock(db: Db, id: string, offsetMs: number): void {
  sql(db, 'UPDATE accounts SET clock_frozen_at_ms = NULL, clock_offset_ms = ? WHERE id = ?').run(offsetMs, id);
}

/** Moves a running or a frozen clock forward by `deltaMs`. */
export function shiftClockBy(db: Db, id: string, deltaMs: number): void {
  sql(
    db,
    `UPDATE accounts SET clock_offset_ms = clock_offset_ms + ?,
       clock_frozen_at_ms = CASE WHEN clock_frozen_at_ms IS NULL THEN NULL ELSE clock_frozen_at_ms + ? END
     WHERE id = ?`,
  ).run(deltaMs, deltaMs, id);
}

/** The account made at first start without SANDBOX_API_KEY, remembered so a restart reuses it. */
export function bootstrapAccountId(db: Db): string | undefined {
  return sql(db, "SELECT value FROM meta WHERE key = 'bootstrap_account'").pluck().get() as string | undefined;
}

export function rememberBootstrapAccount(db: Db, id: string): void {
  sql(db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('bootstrap_account', ?)").run(id);
}
