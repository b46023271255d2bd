import type { Db } from './seam.js';

// What the store reads of its own schema (tables, columns, references), so a table a later migration adds is
// purged and snapshotted without a list to keep. The two dialects keep their catalogues differently; each answer
// is the same on both. On PostgreSQL a `rowid` column stands for SQLite's implicit one (the tables whose SQL orders
// by insertion) and, like SQLite's, is not one of a table's columns here.

/** The tables with a column of this name, by name. */
export async function tablesWithColumn(db: Db, column: string): Promise<string[]> {
  return db.dialect === 'postgres'
    ? db.column<string>(
        `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = ?
         ORDER BY table_name COLLATE "C"`,
        [column],
      )
    : db.column<string>(
        `SELECT m.name FROM sqlite_master m WHERE m.type = 'table'
           AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = ?) ORDER BY m.name`,
        [column],
      );
}

/** The table's columns, in the schema's order. */
export async function columnsOf(db: Db, table: string): Promise<string[]> {
  return db.dialect === 'postgres'
    ? db.column<string>(
        `SELECT column_name FROM information_schema.columns
         WHERE table_schema = current_schema() AND table_name = ? AND column_name <> 'rowid' ORDER BY ordinal_position`,
        [table],
      )
    : db.column<string>('SELECT name FROM pragma_table_info(?) ORDER BY cid', [table]);
}

/** The tables the table's foreign keys refer to. */
export async function referencedBy(db: Db, table: string): Promise<string[]> {
  return db.dialect === 'postgres'
    ? db.column<string>(
        "SELECT confrelid::regclass::text FROM pg_constraint WHERE contype = 'f' AND conrelid = ?::regclass",
        [table],
      )
    : db.column<string>('SELECT "table" FROM pragma_foreign_key_list(?)', [table]);
}
