import { describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/store/db.js';
import { lazyPostgresStore, onPostgres } from '../helpers/postgres.js';

// Migrations for both stores (issue "PostgreSQL as the second store", item 3): a database migrated to the newest
// version holds the same tables and columns on SQLite and on PostgreSQL, the types mapped one to one, and money as
// bigint micro-units (never numeric or a float). Read from each database's own catalogue, not from the migrations'
// text, so what is compared is what the migrations made.

interface Column {
  table: string;
  column: string;
  type: string;
  notNull: boolean;
}

/** SQLite's declared type, as PostgreSQL's baseline declares it (store/migrations/postgres-065-baseline.ts). */
const POSTGRES_TYPE_OF: Record<string, string> = {
  INTEGER: 'bigint',
  TEXT: 'text',
  REAL: 'double precision',
  BLOB: 'bytea',
};

const SKIP_REASON = 'PostgreSQL is not this run\'s store (`npm test` runs this file in its "postgres" project)';

describe('Schema parity', () => {
  it('a database migrated on SQLite and one on PostgreSQL hold the same tables and columns, types mapped', async ({
    skip,
  }) => {
    if (!onPostgres) return skip(SKIP_REASON);
    const sqlite = openSqlite(':memory:');
    const postgres = lazyPostgresStore(':memory:');
    try {
      const onSqlite = (
        await sqlite.all<{ table: string; column: string; type: string; notNull: number; pk: number }>(
          `SELECT m.name AS "table", c.name AS "column", c.type AS type, c."notnull" AS "notNull", c.pk AS pk
           FROM sqlite_master m, pragma_table_info(m.name) c
           WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite%' ORDER BY m.name, c.cid`,
        )
      ).map((c) => ({
        table: c.table,
        column: c.column,
        type: POSTGRES_TYPE_OF[c.type.toUpperCase()] ?? `unmapped SQLite type ${c.type}`,
        // A primary key is never null on PostgreSQL; on SQLite only an INTEGER one is said to be.
        notNull: c.notNull === 1 || c.pk > 0,
      }));
      const onPostgresDb = (
        await postgres.all<{ table: string; column: string; type: string; nullable: string; pk: boolean }>(
          `SELECT c.table_name AS "table", c.column_name AS "column", c.data_type AS type, c.is_nullable AS nullable
           FROM information_schema.columns c JOIN information_schema.tables t
             ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
           WHERE c.table_schema = current_schema() AND c.column_name <> 'rowid'
           ORDER BY c.table_name COLLATE "C", c.ordinal_position`,
        )
      ).map((c) => ({ table: c.table, column: c.column, type: c.type, notNull: c.nullable === 'NO' }));

      const key = (c: Column) => `${c.table}.${c.column}`;
      const byKey = (cols: Column[]) => new Map(cols.map((c) => [key(c), c]));
      const s = byKey(onSqlite);
      const p = byKey(onPostgresDb);
      expect([...p.keys()].sort()).toEqual([...s.keys()].sort());
      for (const [k, col] of s) expect({ [k]: p.get(k) }).toEqual({ [k]: col });
      // Money, in whatever table a later migration puts it: bigint micro-units.
      const money = onPostgresDb.filter((c) => /_micros$/.test(c.column));
      expect(money.map(key)).toEqual(
        expect.arrayContaining(['ledger_accounts.balance_micros', 'transfers.amount_micros', 'cards.open_fee_micros']),
      );
      for (const c of money) expect({ [key(c)]: c.type }).toEqual({ [key(c)]: 'bigint' });
    } finally {
      await sqlite.close();
      await postgres.close();
    }
  });
});
