import Database from 'better-sqlite3';

// An online copy of a live database (SQLite's backup API, as better-sqlite3 exposes it), taken while the server
// keeps writing through its own connection.

export interface BackupResult {
  /** Pages copied (the database's size in pages when the copy was taken). */
  pages: number;
  /** `PRAGMA integrity_check` of the copy: `ok`, or what it found. */
  integrity: string;
}

/**
 * Copies the database at `source` into the new file `target`, as one consistent snapshot: every page in a single
 * step of the backup API, so the copy is the database as one read transaction saw it (a copy made a hundred pages
 * at a time restarts whenever the server commits, and never ends on a busy server). In WAL mode that read holds no
 * lock the server's writes wait for. The copy is then made self-contained (rollback journal, no -wal file beside
 * it) and checked.
 */
export async function backupDatabase(source: string, target: string): Promise<BackupResult> {
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const { totalPages } = await db.backup(target, { progress: () => 0x7fffffff });
    const copy = new Database(target);
    try {
      copy.pragma('journal_mode = DELETE');
      const integrity = (copy.pragma('integrity_check') as { integrity_check: string }[])
        .map((r) => r.integrity_check)
        .join('; ');
      return { pages: totalPages, integrity };
    } finally {
      copy.close();
    }
  } finally {
    db.close();
  }
}
