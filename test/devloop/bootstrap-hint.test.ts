import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, serveOn, stop } from '../helpers/cli-process.js';

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'sandbox-hint-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('serve on a database whose ready account an earlier start made', () => {
  it('says how to get a new key: the operator API (which then works), or a fresh --db', async () => {
    const db = join(dir, 'hint.db');
    const first = await serveOn(db);
    expect(first.stdout()).toMatch(/API key \(shown once, keep it\)/);
    expect(first.stdout()).not.toMatch(/Lost the key/);
    expect((await stop(first)).code).toBe(0);

    const second = await serveOn(db, [], { SANDBOX_ADMIN_TOKEN: 'hint-admin-token' });
    try {
      const out = second.stdout();
      const accountId = /Ready account (\S+) \(made by an earlier start/.exec(out)?.[1];
      expect(accountId).toMatch(/^acct_/);
      expect(out).toMatch(/--db \.\/data\/fresh\.db/);
      const curl = /curl -X POST -H "Authorization: Bearer \$SANDBOX_ADMIN_TOKEN" (\S+)/.exec(out)?.[1];
      expect(curl).toBe(`${second.url}/admin/v1/accounts/${accountId}/keys`);
      // The command it prints works, and the key it issues opens the ready account.
      const issued = await fetch(curl!, { method: 'POST', headers: { Authorization: 'Bearer hint-admin-token' } });
      expect(issued.status).toBe(201);
      const { apiKey } = (await issued.json()) as { apiKey: string };
      const list = await fetch(`${second.url}/v1/wallet/assetList`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-KEY': apiKey },
        body: '{}',
      });
      expect(list.status).toBe(200);
    } finally {
      await stop(second);
    }
  });
});
