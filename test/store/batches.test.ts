import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { onPostgres, peekPostgres, postgresCopy } from '../helpers/postgres.js';
import { createTestSandbox, FUNDED_ACCOUNT, type TestSandbox } from '../helpers/sandbox.js';

// Keyed writes of one account sent together commit in batches (store/transaction-runner.ts: per turn on SQLite, per
// account on PostgreSQL, one batch in flight and the writes that arrive meanwhile in the next). What a partner must
// still see, on the run's store: an answer only once its write is committed, and each write succeeding or failing on
// its own.

let sb: TestSandbox | undefined;
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  await sb?.close();
  sb = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A sandbox on a database another connection can read, and that reader: is the card committed? */
async function sandboxWithReader(): Promise<(cardId: string) => Promise<boolean>> {
  if (onPostgres) {
    const db = await postgresCopy();
    cleanups.push(() => db.drop());
    sb = createTestSandbox({ config: { dbPath: db.url } });
    return async (cardId) =>
      (await peekPostgres<string>(db.url, `SELECT count(*) FROM cards WHERE id = '${cardId.replace(/'/g, '')}'`)) ===
      '1';
  }
  const dir = mkdtempSync(join(tmpdir(), 'batches-'));
  const path = join(dir, 'sandbox.db');
  sb = createTestSandbox({ config: { dbPath: path } });
  let reader: Database.Database | undefined;
  cleanups.push(() => {
    reader?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return async (cardId) => {
    reader ??= new Database(path, { readonly: true });
    return reader.prepare('SELECT 1 FROM cards WHERE id = ?').get(cardId) !== undefined;
  };
}

describe('keyed writes of one account sent together', () => {
  it('are each answered only once committed: another connection sees every acknowledged card at its answer', async () => {
    const committed = await sandboxWithReader();
    const { apiKey } = await sb!.account(FUNDED_ACCOUNT);
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
    // 1,000 USDT seeded, 20 cards of 10 (0 % fee, no open fee).
    const assets = await sb!.post(apiKey, '/v1/wallet/assetList', {});
    expect(Number(assets.body.assetList[0].availableAmount)).toBe(800);
  });

  it('fail or succeed each on its own: of 10 deposits to one card sent together, one is credited, 9 get 4007', async () => {
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
    // 1,000 USDT seeded, 10 on the card, 5 deposited once (0 % fee): the refused ones moved nothing.
    const assets = await sb.post(apiKey, '/v1/wallet/assetList', {});
    expect(Number(assets.body.assetList[0].availableAmount)).toBe(985);
    // A refused key stored nothing: the same key retried once the top-up has settled executes.
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
});
