import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { newCard, sim } from '../helpers/core.js';
import { createTestSandbox } from '../helpers/sandbox.js';
import { authorize } from '../helpers/card-network.js';

// An upgrade keeps every row: a database written by the release before the card network's hard cases (no migration
// 032, traffic runs, nor 061, the readiness ledger column) opens with both applied and nothing lost; so does one
// written before migration 063 (the idempotency keys' field digests), its keys kept without digests.

/** Every table's row count, the migrations' own table aside. */
function counts(db: Db): Record<string, number> {
  const tables = db
    .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[];
  return Object.fromEntries(
    tables
      .filter((t) => t !== 'schema_migrations')
      .map((t) => [t, db.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get() as number]),
  );
}

describe('upgrading a database of the previous release', () => {
  it('applies migrations 032, 061 and 063 to a database written without them, keeping every row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-upgrade-'));
    const path = join(dir, 'sandbox.db');
    try {
      const sb = createTestSandbox({ config: { dbPath: path } });
      const acct = await sb.account({ balance: 100, depositFeeRate: '0' });
      const cardId = await newCard(sb, acct.apiKey, 40);
      const keyed = { 'Idempotency-Key': 'before-063' };
      expect((await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 5 }, keyed)).status).toBe(200);
      const auth = await authorize(sb, acct.apiKey, cardId, { amount: 5 });
      await sim(sb, acct.apiKey, 'transaction/clear', { transactionId: auth.body.transactionId });
      const run = (await sim(sb, acct.apiKey, 'readiness/run', {})).body.runId as string;
      await sb.close();

      // The previous release's file: as written, without what the two migrations add.
      const old = openDb(path);
      old.exec(`DROP TABLE traffic_runs; ALTER TABLE readiness_runs DROP COLUMN ledger_check;
        ALTER TABLE idempotency_keys DROP COLUMN field_digests;
        DELETE FROM schema_migrations WHERE version IN (32, 61, 63);`);
      const before = counts(old);
      old.close();

      const upgraded = openDb(path);
      try {
        expect(
          upgraded.prepare('SELECT version FROM schema_migrations WHERE version IN (32, 61, 63)').pluck().all(),
        ).toEqual([32, 61, 63]);
        expect(counts(upgraded)).toEqual({ ...before, traffic_runs: 0 });
        expect(upgraded.prepare('SELECT id, ledger_check FROM readiness_runs').all()).toEqual([
          { id: run, ledger_check: null },
        ]);
        expect(upgraded.prepare('SELECT key, field_digests FROM idempotency_keys').all()).toEqual([
          { key: 'before-063', field_digests: null },
        ]);
      } finally {
        upgraded.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
