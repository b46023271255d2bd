import type { Db } from './seam.js';
import { deferForeignKeys } from './db.js';
import { columnsOf } from './schema.js';

// SQL of account snapshots (domain/snapshot-*.ts): an account's rows read table by table, and written back. Table and
// column names come from the domain's fixed list of sections and from the schema itself, never from a document.

export type Row = Record<string, unknown>;

const columnsCache = new WeakMap<Db, Map<string, string[]>>();

/** The table's columns, in the schema's order. */
export async function tableColumns(db: Db, table: string): Promise<string[]> {
  let byTable = columnsCache.get(db);
  if (!byTable) columnsCache.set(db, (byTable = new Map()));
  let columns = byTable.get(table);
  if (!columns) {
    columns = await columnsOf(db, table);
    if (columns.length === 0) throw new Error(`no table ${table}`);
    byTable.set(table, columns);
  }
  return columns;
}

/** The account's rows of a table, in `order`, without `account_id`, minus the rows `where` leaves out. */
export async function accountRows(
  db: Db,
  table: string,
  accountId: string,
  order: string,
  where?: string,
): Promise<Row[]> {
  // The schema's columns, not `*`: PostgreSQL's stand-in rowid (store/schema.ts) is no part of a row.
  const columns = (await tableColumns(db, table)).join(', ');
  return await db.all<Row>(
    `SELECT ${columns} FROM ${table} WHERE account_id = ?${where ? ` AND ${where}` : ''} ORDER BY ${order}`,
    [accountId],
  );
}

/** How many rows the account has in each table (each an indexed count). */
export async function accountRowCount(db: Db, tables: readonly string[], accountId: string): Promise<number> {
  let n = 0;
  for (const table of tables) {
    n += (await db.value(`SELECT COUNT(*) FROM ${table} WHERE account_id = ?`, [accountId])) as number;
  }
  return n;
}

/** The counters numbering the account's things: `<kind>:<account>[:...]`, and `txn-card:<card>` of its cards. */
export async function accountSequences(db: Db, accountId: string): Promise<{ scope: string; value: number }[]> {
  return (await db.all(
    `SELECT scope, value FROM seq_counters WHERE scope LIKE '%:' || @id OR scope LIKE '%:' || @id || ':%'
       OR scope IN (SELECT 'txn-card:' || id FROM cards WHERE account_id = @id) ORDER BY scope`,
    { id: accountId },
  )) as { scope: string; value: number }[];
}

/** BIN rows by id (its own numbering, created_seq, left out). */
export async function binRowsById(db: Db, ids: readonly string[]): Promise<Row[]> {
  return (await db.all(
    `SELECT id, title, bin, card_network, fx_rate_ppm, open_fee_micros, atm_rate_ppm, spend_daily_micros,
       minimal_deposit_micros, enabled, inventory, provisioning FROM bins
     WHERE id IN (SELECT value FROM json_each(?)) ORDER BY created_seq`,
    [JSON.stringify(ids)],
  )) as Row[];
}

/** Which of `values` a column of a table already holds (any account's). */
export async function takenValues(
  db: Db,
  table: string,
  column: string,
  values: readonly string[],
): Promise<Set<string>> {
  if (values.length === 0) return new Set();
  const found = (await db.column(`SELECT ${column} FROM ${table} WHERE ${column} IN (SELECT value FROM json_each(?))`, [
    JSON.stringify(values),
  ])) as string[];
  return new Set(found);
}

/**
 * Writes rows into a table: each row's columns by name, every one the table has (a table's own numbering, left
 * out of a row, takes its next value). Foreign keys are checked when the caller's transaction commits.
 */
export async function insertRows(db: Db, table: string, rows: readonly Row[]): Promise<void> {
  if (!db.inTransaction) throw new Error('insertRows must run inside a transaction');
  await deferForeignKeys(db);
  for (const row of rows) {
    const columns = Object.keys(row);
    await db.run(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
      row,
    );
  }
}

/** Sets counters (a loaded account's numbering goes on from where it was). */
export async function putSequences(db: Db, counters: readonly { scope: string; value: number }[]): Promise<void> {
  for (const { scope, value } of counters) {
    await db.run(
      'INSERT INTO seq_counters (scope, value) VALUES (?, ?) ON CONFLICT (scope) DO UPDATE SET value = excluded.value',
      [scope, value],
    );
  }
}

/** Replaces the settings and the clock of an account row with a loaded one's. */
export async function loadAccountRow(
  db: Db,
  id: string,
  r: {
    name: string;
    deposit_fee_rate_ppm: number;
    require_idempotency_key: number;
    deposit_address_mode: string;
    deposit_address: string | null;
    default_bin_id: string;
    created_at_ms: number;
    clock_offset_ms: number;
    clock_frozen_at_ms: number | null;
  },
): Promise<void> {
  await db.run(
    `UPDATE accounts SET name = @name, deposit_fee_rate_ppm = @deposit_fee_rate_ppm,
       require_idempotency_key = @require_idempotency_key, deposit_address_mode = @deposit_address_mode,
       deposit_address = @deposit_address, default_bin_id = @default_bin_id, created_at_ms = @created_at_ms,
       clock_offset_ms = @clock_offset_ms, clock_frozen_at_ms = @clock_frozen_at_ms WHERE id = @id`,
    { ...r, id },
  );
}

/** Pending deliveries of the account without their attempt job (each gets one back). */
export async function pendingDeliveries(
  db: Db,
  accountId: string,
): Promise<{ id: number; next_attempt_at_ms: number | null; created_at_ms: number }[]> {
  return (await db.all(
    "SELECT id, next_attempt_at_ms, created_at_ms FROM webhook_deliveries WHERE account_id = ? AND state = 'pending' ORDER BY id",
    [accountId],
  )) as { id: number; next_attempt_at_ms: number | null; created_at_ms: number }[];
}

/** Whether the database holds any account yet (a snapshot boots only a new one). */
export async function hasAccounts(db: Db): Promise<boolean> {
  return (await db.value('SELECT EXISTS (SELECT 1 FROM accounts)')) === 1;
}

/** The account a start from a snapshot made, remembered so a restart on the same database reuses it. */
export async function snapshotAccountId(db: Db): Promise<string | undefined> {
  return (await db.value("SELECT value FROM meta WHERE key = 'snapshot_account'")) as string | undefined;
}

export async function rememberSnapshotAccount(db: Db, id: string): Promise<void> {
  await db.run(
    "INSERT INTO meta (key, value) VALUES ('snapshot_account', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    [id],
  );
}
