import { assertInTransaction, sql, type Db } from '../store/db.js';
import { DomainError } from './errors.js';
import { formatMicros, formatPpm } from './money.js';

export const DEFAULT_BIN_ID = 'VISA-EFI-454924';

export interface Bin {
  id: string;
  title: string;
  bin: string;
  cardNetwork: string;
  fxRatePpm: number;
  openFeeMicros: number;
  atmRatePpm: number;
  spendDailyMicros: number;
  minimalDepositMicros: number;
  enabled: boolean;
  inventory: number;
  provisioning: boolean;
}

interface BinRow {
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

const toBin = (r: BinRow): Bin => ({
  id: r.id,
  title: r.title,
  bin: r.bin,
  cardNetwork: r.card_network,
  fxRatePpm: r.fx_rate_ppm,
  openFeeMicros: r.open_fee_micros,
  atmRatePpm: r.atm_rate_ppm,
  spendDailyMicros: r.spend_daily_micros,
  minimalDepositMicros: r.minimal_deposit_micros,
  enabled: r.enabled === 1,
  inventory: r.inventory,
  provisioning: r.provisioning === 1,
});

export const DEFAULT_BIN: Bin = Object.freeze({
  id: DEFAULT_BIN_ID,
  title: 'Ether Card',
  bin: '454924',
  cardNetwork: 'Visa',
  fxRatePpm: 6_000,
  openFeeMicros: 0,
  atmRatePpm: 20_000,
  spendDailyMicros: 100_000_000_000,
  minimalDepositMicros: 1_000_000,
  enabled: true,
  inventory: 10_000,
  provisioning: false,
});

/** Creates or replaces a BIN of the catalogue. */
export function putBin(db: Db, bin: Bin): void {
  assertInTransaction(db, 'putBin');
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
  ).run({ ...bin, enabled: bin.enabled ? 1 : 0, provisioning: bin.provisioning ? 1 : 0 });
}

/** The default BIN exists from the first start on. */
export function ensureDefaultBin(db: Db): void {
  if (!findBin(db, DEFAULT_BIN_ID)) putBin(db, DEFAULT_BIN);
}

export function findBin(db: Db, id: string): Bin | undefined {
  const row = sql(db, 'SELECT * FROM bins WHERE id = ?').get(id) as BinRow | undefined;
  return row && toBin(row);
}

export function getBin(db: Db, id: string): Bin {
  const bin = findBin(db, id);
  if (!bin) throw new DomainError('BIN_NOT_FOUND');
  return bin;
}

export function listBins(db: Db): Bin[] {
  return (sql(db, 'SELECT * FROM bins ORDER BY created_seq').all() as BinRow[]).map(toBin);
}

export interface Inventory {
  available: number;
  provisioning: boolean;
}

/** Whether any card was issued on the BIN (its card numbers start with the BIN digits, so those are fixed). */
export function binHasCards(db: Db, binId: string): boolean {
  return sql(db, 'SELECT 1 FROM cards WHERE bin_id = ? LIMIT 1').get(binId) !== undefined;
}

/** This account's view of a BIN's inventory: its own override when the sandbox set one, else the BIN's. */
export function inventoryFor(db: Db, accountId: string, bin: Bin): Inventory {
  const row = sql(
    db,
    'SELECT available, provisioning FROM account_bin_inventory WHERE account_id = ? AND bin_id = ?',
  ).get(accountId, bin.id) as { available: number; provisioning: number } | undefined;
  return row
    ? { available: row.available, provisioning: row.provisioning === 1 }
    : { available: bin.inventory, provisioning: bin.provisioning };
}

export function setAccountInventory(db: Db, accountId: string, binId: string, inv: Inventory): void {
  assertInTransaction(db, 'setAccountInventory');
  sql(
    db,
    `INSERT INTO account_bin_inventory (account_id, bin_id, available, provisioning) VALUES (?, ?, ?, ?)
     ON CONFLICT (account_id, bin_id) DO UPDATE SET available = excluded.available, provisioning = excluded.provisioning`,
  ).run(accountId, binId, inv.available, inv.provisioning ? 1 : 0);
}

/** Takes one card from inventory (4010 while provisioning, 4009 when none is left). */
export function takeFromInventory(db: Db, accountId: string, bin: Bin): void {
  const inv = inventoryFor(db, accountId, bin);
  if (inv.provisioning) throw new DomainError('CARD_PROVISIONING');
  if (inv.available <= 0) throw new DomainError('CARD_OUT_OF_INVENTORY');
  const own = sql(
    db,
    'UPDATE account_bin_inventory SET available = available - 1 WHERE account_id = ? AND bin_id = ?',
  ).run(accountId, bin.id);
  if (own.changes === 0) sql(db, 'UPDATE bins SET inventory = inventory - 1 WHERE id = ?').run(bin.id);
}

/** The BIN as binList shows it; `fee.deposit` is the calling account's rate, not the BIN's. */
export function binView(bin: Bin, depositFeeRatePpm: number) {
  return {
    id: bin.id,
    title: bin.title,
    bin: bin.bin,
    cardNetwork: bin.cardNetwork,
    fee: {
      deposit: formatPpm(depositFeeRatePpm),
      fx: formatPpm(bin.fxRatePpm),
      card: formatMicros(bin.openFeeMicros),
      atm: formatPpm(bin.atmRatePpm),
    },
    limit: { spendDaily: formatMicros(bin.spendDailyMicros), minimalDeposit: formatMicros(bin.minimalDepositMicros) },
    enabled: bin.enabled,
  };
}
