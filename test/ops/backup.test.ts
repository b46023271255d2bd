import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, serveOn, type ServeProcess, stop } from '../helpers/cli-process.js';
import { post } from '../helpers/http-call.js';

// `card-sandbox backup`: a consistent copy of a database the server is writing to, with its secret, that a server
// started on it serves as the original did.

let dir: string;
const servers: ServeProcess[] = [];

beforeAll(() => ensureBuilt());

afterEach(async () => {
  for (const s of servers.splice(0)) await stop(s);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** serveOn, the server stopped after the test. */
async function serveUntilAfter(db: string, args: string[] = []) {
  const s = await serveOn(db, args);
  servers.push(s);
  return s;
}

/**
 * Creates cards on 4 connections until stopped; `acknowledged` holds each card the server answered 200 for, in
 * the order the answers came.
 */
function writer(url: string, key: string) {
  const acknowledged: string[] = [];
  let inFlight = 0;
  let stopped = false;
  let n = 0;
  const loop = async () => {
    while (!stopped) {
      inFlight++;
      const headers = { 'Idempotency-Key': `backup-${n++}` };
      const res = await post(url, key, '/v1/card/create', { amount: 10, currency: 'USDT' }, headers);
      inFlight--;
      expect(res.status).toBe(200);
      acknowledged.push(res.body.cardId as string);
    }
  };
  const loops = Promise.all([loop(), loop(), loop(), loop()]);
  /** Resolves once `count` cards in all are acknowledged. */
  const until = async (count: number) => {
    while (acknowledged.length < count) await new Promise((r) => setImmediate(r));
  };
  return {
    acknowledged,
    until,
    inFlight: () => inFlight,
    stop: async () => {
      stopped = true;
      await loops;
    },
  };
}

async function cardIds(url: string, key: string): Promise<string[]> {
  const res = await post(url, key, '/v1/card/list');
  expect(res.status).toBe(200);
  return (res.body.cardList as { cardId: string }[]).map((c) => c.cardId);
}

describe('card-sandbox backup', () => {
  it('copies a database while a writer runs: the copy passes integrity_check and serves every card acknowledged before it began', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-backup-'));
    const live = join(dir, 'live.db');
    const copy = join(dir, 'copy.db');
    const server = await serveUntilAfter(live, ['--seed-balance', '100000']);
    const key = /API key \(shown once, keep it\): (\S+)/.exec(server.stdout())![1]!;
    const w = writer(server.url, key);
    await w.until(20);
    // The backup starts while requests are on the wire, and the writer goes on until after it ends.
    expect(w.inFlight()).toBeGreaterThan(0);
    const before = [...w.acknowledged];
    const backup = await runCli(['backup', '--db', live, '--out', copy]);
    await w.until(w.acknowledged.length + 8);
    await w.stop();
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/integrity ok/);
    // Its own line reads as written: the redactor of command output once took a word of it for a secret.
    expect(backup.stdout).toContain(`and its server secret to ${copy}.secret (keep the two together;`);
    expect(backup.stdout).not.toContain('[REDACTED]');

    const check = new Database(copy, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    check.close();
    // A self-contained file, and the secret beside it as private as the original.
    expect(existsSync(`${copy}-wal`)).toBe(false);
    expect(statSync(`${copy}.secret`).mode & 0o777).toBe(0o600);

    const pan = async (url: string) =>
      (await post(url, key, '/v1/card/sensitiveInfo', { cardId: before[0] })).body.cardNo as string;
    const livePan = await pan(server.url);
    await stop(servers.pop()!);

    // A server on the copy takes the same key and knows every card acknowledged before the backup began.
    const restored = await serveUntilAfter(copy);
    const served = await cardIds(restored.url, key);
    expect(served).toEqual(expect.arrayContaining(before));
    expect(served.length).toBeLessThanOrEqual(w.acknowledged.length + 4);
    expect(await pan(restored.url)).toBe(livePan);
  });

  it('refuses to replace a file, and to copy what is not there, leaving nothing behind', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-backup-'));
    const taken = join(dir, 'taken.db');
    writeFileSync(taken, 'keep me');
    const missing = await runCli(['backup', '--db', join(dir, 'none.db'), '--out', join(dir, 'x.db')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no database at/);
    const live = join(dir, 'live.db');
    const server = await serveUntilAfter(live);
    const refused = await runCli(['backup', '--db', live, '--out', taken]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/exists: choose a new name/);
    const usage = await runCli(['backup', '--db', live]);
    expect(usage.code).toBe(2);
    await stop(server);
    expect((await import('node:fs')).readdirSync(dir).sort()).toEqual(['live.db', 'live.db.secret', 'taken.db'].sort());
  });

  it('on a PostgreSQL --db exits 2 with one line saying to use pg_dump, naming the database without its password', async () => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-backup-'));
    const out = join(dir, 'copy.db');
    for (const [db, named] of [
      [
        'postgres://sandbox:s3cret-pw@db.internal:5432/sandbox?sslmode=require',
        'postgres://sandbox@db.internal:5432/sandbox?sslmode=require',
      ],
      ['postgresql://sandbox@db.internal/sandbox?password=s3cret-pw', 'postgresql://sandbox@db.internal/sandbox'],
    ]) {
      const refused = await runCli(['backup', '--db', db!, '--out', out]);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr).toBe(
        `card-sandbox backup: ${named} is a PostgreSQL database: back it up with pg_dump, restore it with pg_restore ` +
          '(docs/hosted.md, "Backup and restore")\n',
      );
    }
    expect((await import('node:fs')).readdirSync(dir)).toEqual([]);
  });
});
