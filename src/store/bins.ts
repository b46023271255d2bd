import { sql, type Db } from './db.js';

// SQL of the BIN catalogue and of each account's inventory overrides.

export interface BinRow {
  id: string;
  title: string;
  bin: string;
  card_network: string;
  fx_rate_ppm: number;
  open_fee_micros: number;
  atm_rate_ppm: number;
  spend_daily_micros: number;
  minimal_deposit_micros: number;
  enabled: number;
  inventory: number;
  provisioning: number;
}

/** The named parameters of `putBin`: the BIN's fields, flags as 0 or 1. */
export interface BinValues {
  id: string;
  title: string;
  bin: string;
  cardNetwork: string;
  fxRatePpm: number;
  openFeeMicros: number;
  atmRatePpm: number;
  spendDailyMicros: number;
  minimalDepositMicros: number;
  enabled: number;
  inventory: number;
  provisioning: number;
}

/** Creates or replaces a BIN; a new one is listed after every other. */
export function upsertBin(db: Db, values: BinValues): void {
  sql(
    db,
    `INSERT INTO bins (id, title, bin, card_network, fx_rate_ppm, open_fee_micros, atm_rate_ppm, spend_daily_micros,
       minimal_deposit_micros, enabled, inventory, provisioning, created_seq)
     VALUES (@id, @title, @bin, @cardNetwork, @fxRatePpm, @openFeeMicros, @atmRatePpm, @spendDailyMicros,
       @minimalDepositMicros, @enabled, @inventory, @provisioning, (SELECT COALESCE(MAX(created_seq), 0) + 1 FROM bins))
     ON CONFLICT (id) DO UPDATE SET title = excluded.title, bin = excluded.bin, card_network = excluded.card_network,
       fx_rate_ppm = excluded.fx_rate_ppm, open_fee_micros = excluded.open_fee_micros,
       atm_rate_ppm = excluded.atm_rate_ppm, spend_daily_micros = excluded.spend_daily_micros,
       minimal_deposit_micros = excluded.minimal_deposit_micros, enabled = excluded.enabled,
       inventory = excluded.inventory, provisioning = excluded.provisioning`,
  ).run(values);
}

export function binRow(db: Db, id: string): BinRow | undefined {
  return sql(db, 'SELECT * FROM bins WHERE id = ?').get(id) as BinRow | undefined;
}

export function binRows(db: Db): BinRow[] {
  return sql(db, 'SELECT * FROM bins ORDER BY created_seq').all() as BinRow[];
}

/** Whether any card was issued on the BIN (its card numbers start with the BIN digits, so those are fixed). */
export function binHasCards(db: Db, binId: string): boolean {
  return sql(db, 'SELECT 1 FROM cards WHERE bin_id = ? LIMIT 1').get(binId) !== undefined;
}

/** The account's own inventory of a BIN, when the sandbox set one. */
export function accountInventoryRow(
  db: Db,
  accountId: string,
  binId: string,
): { available: number; provisioning: number } | undefined {
  return sql(db, 'SELECT available, provisioning FROM account_bin_inventory WHERE account_id = ? AND bin_id = ?').get(
    accountId,
    binId,
  ) as { available: number; provisioning: number } | undefined;
}

export function upsertAccountInventory(
  db: Db,
  accountId: string,
  binId: string,
  available: number,
  provisioning: number,
): void {
  sql(
    db,
    `INSERT INTO account_bin_inventory (account_id, bin_id, available, provisioning) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, bin_id) DO UPDATE SET available = excluded.available, provisioning = excluded.provisioning`,
  ).run(accountId, binId, available, provisioning);
}

/** Takes one card from the account's own inventory of the BIN; answers 0 when the account has none of its own. */
export function takeFromAccountInventory(db: Db, accountId: string, binId: string): number {
  return sql(db, 'UPDATE account_bin_inventory SET available = available - 1 WHERE account_id = ? AND bin_id = ?').run(
    accountId,
    binId,
  ).changes;
}

export function takeFromBinInventory(db: Db, binId: string): void {
  sql(db, 'UPDATE bins SET inventory = inventory - 1 WHERE id = ?').run(binId);
}
