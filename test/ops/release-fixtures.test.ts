import Database from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/store/migrations/index.js';
import { openDb } from '../../src/store/db.js';
import { ADMIN_TOKEN, createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { skipBecause } from '../helpers/skip.js';

// Upgrades keep every row: each release leaves a database it wrote through its own API in test/fixtures/releases
// (scripts/release-fixture.mjs, docs/development.md "Releases"), with what its API answered to a partner's reads.
// The current build opens each: every row of every table the release wrote is still there with the values it had,
// every migration since is applied, and every read answers what the release answered (new fields and list entries
// allowed, none lost or changed), the release's API keys and card numbers included.

const FIXTURES = join(import.meta.dirname, '../fixtures/releases');

interface Read {
  method: 'GET' | 'POST';
  path: string;
  body?: Record<string, unknown>;
  admin?: boolean;
  status: number;
  response?: unknown;
  cardDataSha256?: string;
}

interface Manifest {
  release: string;
  secret: string;
  capturedAtMs: number;
  revokedKey: { apiKey: string; status: number };
  accounts: { name: string; accountId: string; apiKey: string; reads: Read[] }[];
}

const releases = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length));

type Rows = Record<string, { columns: string[]; rows: string[] }>;

/** Every table's columns and rows (each row as JSON, sorted: no order is assumed), the migrations' own aside. */
/** Columns a later migration renamed, by table: a release's value is read back under the new name. */
const RENAMED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  transfers: { kind: 'reason' }, // migration 066
};

function tableRows(db: Database.Database, only?: Rows): Rows {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  const out: Rows = {};
  for (const table of tables.filter((t) => t !== 'schema_migrations')) {
    const columns =
      only?.[table]?.columns ??
      (db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]);
    const select = columns.map((c) => `"${(only && RENAMED[table]?.[c]) ?? c}"`).join(', ');
    const rows = (db.prepare(`SELECT ${select} FROM "${table}"`).raw().all() as unknown[][])
      .map((r) => JSON.stringify(r))
      .sort();
    out[table] = { columns, rows };
  }
  return out;
}

/**
 * Where `received` lost or changed something `recorded` has: every field kept with an equal value (more fields are
 * fine), and every array element kept in order (an array may gain elements: a check added to readiness's catalogue).
 * Answers the first difference's path, or undefined.
 */
function lost(received: unknown, recorded: unknown, at = '$'): string | undefined {
  if (Array.isArray(recorded)) {
    if (!Array.isArray(received)) return `${at} is no longer an array`;
    let from = 0;
    for (const [i, item] of recorded.entries()) {
      while (from < received.length && lost(received[from], item) !== undefined) from++;
      if (from === received.length) return `${at}[${i}] is gone: ${JSON.stringify(item).slice(0, 300)}`;
      from++;
    }
    return undefined;
  }
  if (recorded !== null && typeof recorded === 'object') {
    if (received === null || typeof received !== 'object') return `${at} is no longer an object`;
    for (const [k, v] of Object.entries(recorded)) {
      const problem = lost((received as Record<string, unknown>)[k], v, `${at}.${k}`);
      if (problem) return problem;
    }
    return undefined;
  }
  return Object.is(received, recorded)
    ? undefined
    : `${at}: ${JSON.stringify(received)}, was ${JSON.stringify(recorded)}`;
}

const cardDataHash = (b: { cardNo: string; cvv: string; expiryDate: string }) =>
  createHash('sha256')
    .update(JSON.stringify([b.cardNo, b.cvv, b.expiryDate]))
    .digest('hex');

describe.each(releases)('the database release %s wrote', (release) => {
  const manifest = JSON.parse(readFileSync(join(FIXTURES, `${release}.json`), 'utf8')) as Manifest;
  let dir: string;
  let path: string;
  let before: Rows;
  let sb: TestSandbox | undefined;

  beforeAll(() => {
    // The committed file is never opened for writing: a copy is upgraded.
    dir = mkdtempSync(join(tmpdir(), `release-${release}-`));
    path = join(dir, 'sandbox.db');
    copyFileSync(join(FIXTURES, `${release}.db`), path);
    const raw = new Database(path, { readonly: true });
    before = tableRows(raw);
    raw.close();
  });

  afterAll(async () => {
    await sb?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens with every migration since applied and every row of every table kept as it was', () => {
    const db = openDb(path);
    try {
      const applied = db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all();
      expect(applied).toEqual(migrations.map((m) => m.version).sort((a, b) => a - b));
      const after = tableRows(db, before);
      for (const [table, { rows }] of Object.entries(before)) {
        expect(after[table]?.rows, `table ${table}`).toEqual(rows);
      }
      // Every kind of row was written by the release: a fixture with an empty table would prove nothing of it.
      const empty = Object.entries(before)
        .filter(([, t]) => t.rows.length === 0)
        .map(([t]) => t);
      expect(empty).toEqual(['meta']);
    } finally {
      db.close();
    }
  });

  it('answers every read as the release did: accounts, keys, cards and their numbers, transactions, events, webhooks', async () => {
    sb = createTestSandbox({ config: { dbPath: path, secret: manifest.secret } });
    sb.wall.ms = manifest.capturedAtMs;
    let compared = 0;
    for (const account of manifest.accounts) {
      for (const read of account.reads) {
        const what = `${account.name}: ${read.method} ${read.path} ${JSON.stringify(read.body ?? {})}`;
        let req = read.method === 'GET' ? sb.request.get(read.path) : sb.request.post(read.path);
        req = read.admin ? req.set('Authorization', `Bearer ${ADMIN_TOKEN}`) : req.set('X-API-KEY', account.apiKey);
        const res = await (read.body === undefined
          ? req
          : req.set('Content-Type', 'application/json').send(JSON.stringify(read.body)));
        expect(res.status, what).toBe(read.status);
        if (read.cardDataSha256) expect(cardDataHash(res.body), what).toBe(read.cardDataSha256);
        else expect(lost(res.body, read.response), what).toBeUndefined();
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(50);
    const revoked = await sb.post(manifest.revokedKey.apiKey, '/v1/wallet/assetList');
    expect(revoked.status).toBe(manifest.revokedKey.status);
  });
});

describe('release fixtures', () => {
  it('hold at least the release before this build, each a database with its manifest', () => {
    expect(releases).toContain('e1709df');
    for (const r of releases) expect(readdirSync(FIXTURES)).toContain(`${r}.db`);
  });

  it('are committed: .gitignore keeps no fixture out (its *.db once kept a release database out of every clone)', (ctx) => {
    const files = readdirSync(FIXTURES).map((f) => join(FIXTURES, f));
    const r = spawnSync('git', ['check-ignore', '--no-index', ...files], { cwd: FIXTURES, encoding: 'utf8' });
    if (r.error || r.status === 128) skipBecause(ctx, `not a git checkout: ${r.error?.message ?? r.stderr.trim()}`);
    // 1: none of the files is ignored; 0 would list the ignored ones.
    expect([r.status, r.stdout.trim()]).toEqual([1, '']);
  });
});
