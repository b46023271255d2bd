import { copyFileSync, constants, existsSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { backupDatabase } from '../store/backup.js';
import { isPostgresUrl } from '../store/db.js';
import { withoutPassword } from '../store/postgres.js';
import { parseCommand, usageError, type CommandSpec } from './args.js';

// `card-sandbox backup`: a consistent copy of a live database, and the server secret beside it (docs/hosted.md,
// "Backup and restore"). Without its secret a copy keeps its rows, but its API keys no longer match, its card
// numbers change and its webhook secrets cannot be read back.

export const BACKUP_SPEC = {
  command: 'card-sandbox backup',
  synopsis: '--db PATH --out FILE',
  summary:
    "Copies a sandbox database, served or not, into a new file (SQLite's online backup: the server goes on writing), checks the copy, and copies the server secret beside it (PATH.secret to FILE.secret).",
  options: {
    db: {
      type: 'string',
      arg: 'PATH',
      help: 'the SQLite file the server uses (its --db); a PostgreSQL database is backed up with pg_dump',
    },
    out: { type: 'string', arg: 'FILE', help: 'the copy to make; refused when FILE or FILE.secret exists' },
  },
  footer:
    'exit codes: 0 copied and checked, 2 usage or a PostgreSQL --db, 1 the copy failed or its check found a problem (nothing is left at FILE)',
} as const satisfies CommandSpec;

export async function runBackup(argv: string[]): Promise<number> {
  const parsed = parseCommand(BACKUP_SPEC, argv);
  if (!parsed.ok) return parsed.exitCode;
  const { db, out } = parsed.values;
  // PostgreSQL has its own tools, made for it and for the operator's other databases: pg_dump copies a served
  // database consistently, and pg_restore brings it back (docs/hosted.md, "Backup and restore").
  if (db && isPostgresUrl(db)) {
    process.stderr.write(
      `card-sandbox backup: ${withoutPassword(db)} is a PostgreSQL database: back it up with pg_dump, restore it with ` +
        'pg_restore (docs/hosted.md, "Backup and restore")\n',
    );
    return 2;
  }
  if (!db || !out) return usageError(BACKUP_SPEC, 'both --db and --out are required').exitCode;
  if (resolve(db) === resolve(out)) return usageError(BACKUP_SPEC, '--out must not be the database itself').exitCode;
  if (!existsSync(db)) return fail(`no database at ${db}`);
  for (const file of [out, `${out}.secret`]) if (existsSync(file)) return fail(`${file} exists: choose a new name`);
  // The copy is written under a name of its own and renamed when whole and checked: FILE is never half a database.
  const partial = `${out}.partial-${process.pid}`;
  try {
    const { pages, integrity } = await backupDatabase(db, partial);
    if (integrity !== 'ok') {
      rmSync(partial, { force: true });
      return fail(`the copy failed its integrity check: ${integrity}`);
    }
    const secret = `${db}.secret`;
    // COPYFILE_EXCL: never over a file that appeared meanwhile; the copy keeps the file's mode (0600).
    if (existsSync(secret)) copyFileSync(secret, `${out}.secret`, constants.COPYFILE_EXCL);
    renameSync(partial, out);
    process.stdout.write(`backed up ${db} to ${out} (${pages} pages, integrity ok)\n`);
    process.stdout.write(
      existsSync(secret)
        ? // No "secret:" before a word: the redactor of every command's output takes what follows it for a secret.
          `and its server secret to ${out}.secret (keep the two together; guard the secret file as you guard credentials)\n`
        : `no ${secret} beside it: the server takes its secret from SANDBOX_SECRET, which the copy needs as well\n`,
    );
    return 0;
  } catch (err) {
    rmSync(partial, { force: true });
    return fail(`the copy failed: ${(err as Error).message}`);
  }
}

function fail(message: string): number {
  process.stderr.write(`card-sandbox backup: ${message}\n`);
  return 1;
}
