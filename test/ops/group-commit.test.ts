import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/store/db.js';
import { TransactionRunner } from '../../src/store/transaction-runner.js';
import { createTestSandbox, FUNDED_ACCOUNT, type TestSandbox } from '../helpers/sandbox.js';

// Keyed writes that arrive together share one commit (store/transaction-runner.ts). What a partner must still see: an
// answer only once its write is committed, and each write succeeding or failing on its own.

let dir: string | undefined;
let sb: TestSandbox | undefined;
let db: Db | undefined;

afterEach(async () => {
  await sb?.close();
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  sb = db = dir = undefined;
});

describe('group commit: the keyed writes of one turn share a commit', () => {
  it('answers a keyed write only once it is committed: another connection sees each acknowledged card at its answer', async () => {
    dir = mkdtempSync(join(tmpdir(), 'group-commit-'));
    const path = join(dir, 'sandbox.db');
    sb = createTestSandbox({ config: { dbPath: path } });
    const { apiKey } = await sb.account(FUNDED_ACCOUNT);
    const reader = new Database(path, { readonly: true });
    try {
      const committed = (cardId: string) =>
        reader.prepare('SELECT 1 FROM cards WHERE id = ?').get(cardId) !== undefined;
      const seenAtAnswer = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const res = await sb!.post(
            apiKey,
            '/v1/card/create',
            { amount: 10, currency: 'USDT' },
            { 'Idempotency-Key': `c${i}` },
          );
          expect(res.status).toBe(200);
          return committed(res.body.cardId as string);
        }),
      );
      expect(seenAtAnswer).toEqual(Array(20).fill(true));
    } finally {
      reader.close();
    }
  });

  it('fails or succeeds each write on its own: of 10 deposits to one card sent together, one is credited, 9 get 4007', async () => {
    sb = createTestSandbox();
    const { apiKey } = await sb.account(FUNDED_ACCOUNT);
    const card = await sb.post(apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        sb!.post(apiKey, '/v1/card/deposit', { cardId: card.body.cardId, amount: 5 }, { 'Idempotency-Key': `d${i}` }),
      ),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 400).map((r) => r.body.code)).toEqual(Array(9).fill(4007));
    // 1,000 USDT seeded, 10 on the card, 5 deposited once (0 % fee).
    const assets = await sb.post(apiKey, '/v1/wallet/assetList', {});
    expect(Number(assets.body.assetList[0].availableAmount)).toBe(985);
    // The refused keys are free: the same key retried after the top-up settled executes.
    await sb.advance(apiKey, 3);
    const failedKey = `d${answers.findIndex((r) => r.status === 400)}`;
    const retry = await sb.post(
      apiKey,
      '/v1/card/deposit',
      { cardId: card.body.cardId, amount: 5 },
      { 'Idempotency-Key': failedKey },
    );
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it('fails every write of a batch whose transaction SQLite rolled back, and applies none of them', async () => {
    db = openDb(':memory:');
    db.exec('CREATE TABLE t (v INTEGER)');
    const writes = new TransactionRunner(db);
    const insert = (v: number) => () => db!.prepare('INSERT INTO t (v) VALUES (?)').run(v);
    const outcomes = await Promise.allSettled([
      writes.batched(insert(1)),
      // What SQLite does to the whole transaction on some errors (a full disk, an I/O error).
      writes.batched(() => db!.exec('ROLLBACK')),
      writes.batched(insert(3)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(db.prepare('SELECT COUNT(*) FROM t').pluck().get()).toBe(0);
    // The next turn's batch commits as usual.
    await writes.batched(insert(4));
    expect(db.prepare('SELECT v FROM t').pluck().all()).toEqual([4]);
  });
});
