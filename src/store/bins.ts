import type { Db } from './seam.js';

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
export async function upsertBin(db: Db, values: BinValues): Promise<void> {
  await db.run(
    `INSERT INTO bins (id, title, bin, card_network, fx_rate_ppm, open_fee_micros, atm_rate_ppm, spend_daily_micros,
       minimal_deposit_micros, enabled, inventory, provisioning, created_seq)
     VALUES (@id, @title, @bin, @cardNetwork, @fxRatePpm, @openFeeMicros, @atmRatePpm, @spendDailyMicros,
       @minimalDepositMicros, @enabled, @inventory, @provisioning, (SELECT COALESCE(MAX(created_seq), 0) + 1 FROM bins))
     ON CONFLICT (id) DO UPDATE SET title = excluded.title, bin = excluded.bin, card_network = excluded.card_network,
       fx_rate_ppm = excluded.fx_rate_ppm, open_fee_micros = excluded.open_fee_micros,
       atm_rate_ppm = excluded.atm_rate_ppm, spend_daily_micros = excluded.spend_daily_micros,
       minimal_deposit_micros = excluded.minimal_deposit_micros, enabled = excluded.enabled,
       inventory = excluded.inventory, provisioning = excluded.provisioning`,
    values,
  );
}

export async function binRow(db: Db, id: string): Promise<BinRow | undefined> {
  return (await db.get('SELECT * FROM bins WHERE id = ?', [id])) as BinRow | undefined;
}

export async function binRows(db: Db): Promise<BinRow[]> {
  return (await db.all('SELECT * FROM bins ORDER BY created_seq')) as BinRow[];
}

/** Whether any card was issued on the BIN (its card numbers start with the BIN digits, so those are fixed). */
export async function binHasCards(db: Db, binId: string): Promise<boolean> {
  return (await db.get('SELECT 1 FROM cards WHERE bin_id = ? LIMIT 1', [binId])) !== undefined;
}

/** The account's own inventory of a BIN, when the sandbox set one. */
export async function accountInventoryRow(
  db: Db,
  accountId: string,
  binId: string,
): Promise<{ available: number; provisioning: number } | undefined> {
  return (await db.get(
    'SELECT available, provisioning FROM account_bin_inventory WHERE account_id = ? AND bin_id = ?',
    [accountId, binId],
  )) as { available: number; provisioning: number } | undefined;
}

export async function upsertAccountInventory(
  db: Db,
  accountId: string,
  binId: string,
  available: number,
  provisioning: number,
): Promise<void> {
  await db.run(
    `INSERT INTO account_bin_inventory (account_id, bin_id, available, provisioning) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, bin_id) DO UPDATE SET available = excluded.available, provisioning = excluded.provisioning`,
    [accountId, binId, available, provisioning],
  );
}

/**
 * Takes one card from the account's own inventory of the BIN when it has one, is not provisioning and is not empty;
 * answers 0 otherwise (the caller then reads why). The common case is one statement.
 */
export async function takeFromAccountInventory(db: Db, accountId: string, binId: string): Promise<number> {
  return await db.run(
    `UPDATE account_bin_inventory SET available = available - 1
      WHERE account_id = ? AND bin_id = ? AND provisioning = 0 AND available > 0`,
    [accountId, binId],
  );
}

/**
 * Takes one card from the BIN's own inventory for an account without its own (account_bin_inventory), when the BIN
 * is not provisioning and is not empty; answers 0 otherwise (the caller then reads why). One statement.
 */
export async function takeFromBinInventory(db: Db, accountId: string, binId: string): Promise<number> {
  return await db.run(
    `UPDATE bins SET inventory = inventory - 1
      WHERE id = ? AND provisioning = 0 AND inventory > 0
        AND NOT EXISTS (SELECT 1 FROM account_bin_inventory WHERE account_id = ? AND bin_id = ?)`,
    [binId, accountId, binId],
  );
}
