import { afterEach, describe, expect, it } from 'vitest';
import { postgresMigrations } from '../../src/store/migrations/index.js';
import { cleanEnv, ensureBuilt, runCli } from '../helpers/cli-process.js';
import { startInstances, type Instances } from '../helpers/instances.js';
import { onPostgres, peekPostgres, postgresCopy } from '../helpers/postgres.js';

// Issue 44, "Start": instances started together on one database migrate it once, under a lock, make one ready
// account and print its key once; a database a newer release migrated is refused, both versions named.

const NEEDS_POSTGRES = 'a PostgreSQL database for several instances: the run starts one with TEST_STORE=postgres';

let deployment: Instances | undefined;
let dropDatabase: (() => Promise<void>) | undefined;
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
  await dropDatabase?.();
  dropDatabase = undefined;
});

const assetList = async (url: string, apiKey: string) =>
  (
    await fetch(`${url}/v1/wallet/assetList`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: '{}',
    })
  ).status;

describe('Many instances: start', () => {
  it('three instances started together on an empty database migrate it once and make one ready account, whose key only its maker prints', async (ctx) => {
    deployment = await startInstances(ctx, 3, { database: 'empty', together: true });
    const { instances, db, apiKey } = deployment;
    const printed = instances.filter((i) => /API key \(shown once, keep it\)/.test(i.process.stdout()));
    expect(printed).toHaveLength(1);
    expect(apiKey).toMatch(/^sk_sandbox_/);
    // The others name the account an earlier start made.
    const readyId = await peekPostgres<string>(db, "SELECT value FROM meta WHERE key = 'bootstrap_account'");
    for (const i of instances.filter((i) => !printed.includes(i)))
      expect(i.process.stdout()).toContain(`Ready account ${readyId} (made by an earlier start`);
    expect(Number(await peekPostgres(db, 'SELECT COUNT(*) FROM accounts'))).toBe(1);
    expect(Number(await peekPostgres(db, 'SELECT COUNT(*) FROM bins'))).toBe(1);
    expect(Number(await peekPostgres(db, 'SELECT MAX(version) FROM schema_migrations'))).toBe(
      Math.max(...postgresMigrations.map((m) => m.version)),
    );
    for (const url of deployment.urls) expect(await assetList(url, apiKey!)).toBe(200);
  });

  it('a database a newer release migrated is refused at start: one line naming both versions, exit status 2', async ({
    skip,
  }) => {
    if (!onPostgres) return skip(NEEDS_POSTGRES);
    ensureBuilt();
    const copy = await postgresCopy();
    dropDatabase = copy.drop;
    const known = Math.max(...postgresMigrations.map((m) => m.version));
    const newer = known + 1;
    await peekPostgres(copy.url, `INSERT INTO schema_migrations (version, name) VALUES (${newer}, 'from the future')`);
    const run = await runCli(['serve', '--port', '0', '--db', copy.url], { env: cleanEnv() });
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`schema version ${newer}, newer than this release's ${known}`);
    expect(lines[0]).not.toContain('sandbox-tests');
  });
});
