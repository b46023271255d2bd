import { sql, type Db } from './db.js';

// SQL of account snapshots (domain/snapshot-*.ts): an account's rows read table by table, and written back. Table and
// column names come from the domain's fixed list of sections and from the schema itself, never from a document.

export type Row = Record<string, unknown>;

const columnsCache = new WeakMap<Db, Map<string, string[]>>();

/** The table's columns, in the schema's order. */
export function tableColumns(db: Db, table: string): string[] {
  let byTable = columnsCache.get(db);
  if (!byTable) columnsCache.set(db, (byTable = new Map()));
  let columns = byTable.get(table);
  if (!columns) {
    columns = sql(db, 'SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(table) as string[];
    if (columns.length === 0) throw new Error(`no table ${table}`);
    byTable.set(table, columns);
  }
  return columns;
}

/** The account's rows of a table, in `order`, without `account_id`, minus the rows `where` leaves out. */
export function accountRows(db: Db, table: string, accountId: string, order: string, where?: string): Row[] {
  return sql(db, `SELECT * FROM ${table} WHERE account_id = ?${where ? ` AND ${where}` : ''} ORDER BY ${order}`).all(
    accountId,
  ) as Row[];
}

/** How many rows the account has in each table (each an indexed count). */
export function accountRowCount(db: Db, tables: readonly string[], accountId: string): number {
  let n = 0;
  for (const table of tables) {
    n += sql(db, `SELECT COUNT(*) FROM ${table} WHERE account_id = ?`).pluck().get(accountId) as number;
  }
  return n;
}

/** The counters numbering the account's things: `<kind>:<account>[:...]`, and `txn-card:<card>` of its cards. */
export function accountSequences(db: Db, accountId: string): { scope: string; value: number }[] {
  return sql(
    db,
    `SELECT scope, value FROM seq_counters WHERE scope LIKE '%:' || @id OR scope LIKE '%:' || @id || ':%'
       OR scope IN (SELECT 'txn-card:' || id FROM cards WHERE account_id = @id) ORDER BY scope`,
  ).all({ id: accountId }) as { scope: string; value: number }[];
}

/** BIN rows by id (its own numbering, created_seq, left out). */
export function binRowsById(db: Db, ids: readonly string[]): Row[] {
  return sql(
    db,
    `SELECT id, title, bin, card_network, fx_rate_ppm, open_fee_micros, atm_rate_ppm, spend_daily_micros,
       minimal_deposit_micros, enabled, inventory, provisioning FROM bins
     WHERE id IN (SELECT value FROM json_each(?)) ORDER BY created_seq`,
  ).all(JSON.stringify(ids)) as Row[];
}

/** Which of `values` a column of a table already holds (any account's). */
export function takenValues(db: Db, table: string, column: string, values: readonly string[]): Set<string> {
  if (values.length === 0) return new Set();
  const found = sql(db, `SELECT ${column} FROM ${table} WHERE ${column} IN (SELECT value FROM json_each(?))`)
    .pluck()
    .all(JSON.stringify(values)) as string[];
  return new Set(found);
}

/**
 * Writes rows into a table: each row's columns by name, every one the table has (a table's own numbering, left
 * out of a row, takes its next value). Foreign keys are checked when the caller's transaction commits.
 */
export function insertRows(db: Db, table: string, rows: readonly Row[]): void {
  if (!db.inTransaction) throw new Error('insertRows must run inside a transaction');
  db.pragma('defer_foreign_keys = ON');
  for (const row of rows) {
    const columns = Object.keys(row);
    sql(db, `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`).run(row);
  }
}

/** Sets counters (a loaded account's numbering goes on from where it was). */
export function putSequences(db: Db, counters: readonly { scope: string; value: number }[]): void {
  for (const { scope, value } of counters) {
    sql(
      db,
      'INSERT INTO seq_counters (scope, value) VALUES (?, ?) ON CONFLICT (scope) DO UPDATE SET value = excluded.value',
    ).run(scope, value);
  }
}

/** Replaces the settings and the clock of an account row with a loaded one's. */
export function loadAccountRow(
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
): void {
  sql(
    db,
    `UPDATE accounts SET name = @name, deposit_fee_rate_ppm = @deposit_fee_rate_ppm,
       require_idempotency_key = @require_idempotency_key, deposit_address_mode = @deposit_address_mode,
       deposit_address = @deposit_address, default_bin_id = @default_bin_id, created_at_ms = @created_at_ms,
       clock_offset_ms = @clock_offset_ms, clock_frozen_at_ms = @clock_frozen_at_ms WHERE id = @id`,
  ).run({ ...r, id });
}

/** Pending deliveries of the account without their attempt job (each gets one back). */
export function pendingDeliveries(
  db: Db,
  accountId: string,
): { id: number; next_attempt_at_ms: number | null; created_at_ms: number }[] {
  return sql(
    db,
    "SELECT id, next_attempt_at_ms, created_at_ms FROM webhook_deliveries WHERE account_id = ? AND state = 'pending' ORDER BY id",
  ).all(accountId) as { id: number; next_attempt_at_ms: number | null; created_at_ms: number }[];
}

/** Whether the database holds any account yet (a snapshot boots only a new one). */
export function hasAccounts(db: Db): boolean {
  return sql(db, 'SELECT EXISTS (SELECT 1 FROM accounts)').pluck().get() === 1;
}

/** The account a start from a snapshot made, remembered so a restart on the same database reuses it. */
export function snapshotAccountId(db: Db): string | undefined {
  return sql(db, "SELECT value FROM meta WHERE key = 'snapshot_account'").pluck().get() as string | undefined;
}

export function rememberSnapshotAccount(db: Db, id: string): void {
  sql(db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('snapshot_account', ?)").run(id);
}
