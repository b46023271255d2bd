import {
  accountInventoryRow,
  binHasCards,
  binRow,
  binRows,
  takeFromAccountInventory,
  takeFromBinInventory,
  upsertAccountInventory,
  upsertBin,
  type BinRow,
} from '../../store/bins.js';
import { assertInTransaction } from '../../store/db.js';
import { DomainError } from '../kernel/errors.js';
import { formatMicros, formatPpm } from '../kernel/money.js';
import type { Deps } from '../kernel/deps.js';

export const DEFAULT_BIN_ID = 'VISA-EFI-454924';

// The admin routes refuse to change a BIN's digits once cards were issued on it: the store answers as it is.
export { binHasCards };

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
export async function putBin(deps: Pick<Deps, 'db'>, bin: Bin): Promise<void> {
  const { db } = deps;
  assertInTransaction(db, 'putBin');
  await upsertBin(db, { ...bin, enabled: bin.enabled ? 1 : 0, provisioning: bin.provisioning ? 1 : 0 });
}

/** The default BIN exists from the first start on. */
export async function ensureDefaultBin(deps: Pick<Deps, 'db'>): Promise<void> {
  if (!(await findBin(deps, DEFAULT_BIN_ID))) await putBin(deps, DEFAULT_BIN);
}

export async function findBin(deps: Pick<Deps, 'db'>, id: string): Promise<Bin | undefined> {
  const { db } = deps;
  const row = await binRow(db, id);
  return row && toBin(row);
}

export async function getBin(deps: Pick<Deps, 'db'>, id: string): Promise<Bin> {
  const bin = await findBin(deps, id);
  if (!bin) throw new DomainError('BIN_NOT_FOUND');
  return bin;
}

export async function listBins(deps: Pick<Deps, 'db'>): Promise<Bin[]> {
  const { db } = deps;
  return (await binRows(db)).map(toBin);
}

export interface Inventory {
  available: number;
  provisioning: boolean;
}

/** This account's view of a BIN's inventory: its own override when the sandbox set one, else the BIN's. */
async function inventoryFor(deps: Pick<Deps, 'db'>, accountId: string, bin: Bin): Promise<Inventory> {
  const { db } = deps;
  const row = await accountInventoryRow(db, accountId, bin.id);
  return row
    ? { available: row.available, provisioning: row.provisioning === 1 }
    : { available: bin.inventory, provisioning: bin.provisioning };
}

/** sandbox/v1/inventory: sets this account's view of a BIN's inventory; what is left out keeps its value. */
export async function setInventory(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  binId: string,
  change: { available?: number; provisioning?: boolean },
): Promise<Inventory> {
  const current = await inventoryFor(deps, accountId, await getBin(deps, binId));
  const next = {
    available: change.available ?? current.available,
    provisioning: change.provisioning ?? current.provisioning,
  };
  await setAccountInventory(deps, accountId, binId, next);
  return next;
}

async function setAccountInventory(
  deps: Pick<Deps, 'db'>,
  accountId: string,
  binId: string,
  inv: Inventory,
): Promise<void> {
  const { db } = deps;
  assertInTransaction(db, 'setAccountInventory');
  await upsertAccountInventory(db, accountId, binId, inv.available, inv.provisioning ? 1 : 0);
}

/**
 * Takes one card from inventory (4010 while provisioning, 4009 when none is left): the account's own when the sandbox
 * set one, else the BIN's. A card to give costs one statement or two; only a refusal reads why.
 */
export async function takeFromInventory(deps: Pick<Deps, 'db'>, accountId: string, bin: Bin): Promise<void> {
  const { db } = deps;
  if ((await takeFromAccountInventory(db, accountId, bin.id)) === 1) return;
  if ((await takeFromBinInventory(db, accountId, bin.id)) === 1) return;
  // Read again, not from `bin`: another account may have taken the BIN's last card since it was read.
  const inv = await inventoryFor(deps, accountId, await getBin(deps, bin.id));
  if (inv.provisioning) throw new DomainError('CARD_PROVISIONING');
  throw new DomainError('CARD_OUT_OF_INVENTORY');
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
