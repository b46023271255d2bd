import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onPostgres, peekPostgres, postgresCopy } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

// The process is really killed (SIGKILL) at a step of a keyed request's handling, then restarted on the
// same database (a SQLite file, or on a PostgreSQL run a database of its own); the retry must execute exactly once or
// replay.

const CHILD = fileURLToPath(new URL('../helpers/child/crash-server.ts', import.meta.url));
const LOADER = fileURLToPath(new URL('../helpers/child/ts-loader.mjs', import.meta.url));
const ADMIN = 'crash-admin-token';

interface Child {
  proc: ChildProcess;
  url: string;
}

function startChild(dbPath: string): Promise<Child> {
  // SQLite's temp files beside the database, in the folder the test removes (a kill between creating one and
  // unlinking it would leave it in the run's temp folder).
  const proc = spawn(process.execPath, ['--import', LOADER, CHILD, dbPath, ADMIN], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, SQLITE_TMPDIR: dir },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stdout!.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve({ proc, url: `http://127.0.0.1:${m[1]}` });
    });
    proc.stderr!.on('data', (d) => (err += d));
    proc.on('exit', (code) => reject(new Error(`child exited ${code}: ${err}`)));
  });
}

function kill(child: Child): Promise<void> {
  return new Promise((resolve) => {
    if (child.proc.exitCode !== null || child.proc.signalCode !== null) return resolve();
    child.proc.once('exit', () => resolve());
    child.proc.kill('SIGKILL');
  });
}

async function call(child: Child, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(child.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

let dir: string;
let children: Child[] = [];
let dropDatabase: (() => Promise<void>) | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'crash-'));
  children = [];
});
afterEach(async () => {
  for (const c of children) await kill(c);
  rmSync(dir, { recursive: true, force: true });
  await dropDatabase?.();
  dropDatabase = undefined;
});

/** The database the children share: a file in the test's folder, or a PostgreSQL database of its own. */
async function database(): Promise<string> {
  if (!onPostgres) return join(dir, 'sandbox.db');
  const copy = await postgresCopy();
  dropDatabase = copy.drop;
  return copy.url;
}

/** The first column of the first row of `sql`, read beside the server on a connection of the test's own. */
async function peek(db: string, sql: string): Promise<unknown> {
  if (onPostgres) return peekPostgres(db, sql);
  const file = new Database(db, { readonly: true, fileMustExist: true });
  try {
    return file.prepare(sql).pluck().get();
  } finally {
    file.close();
  }
}

async function boot(dbPath: string): Promise<Child> {
  const c = await startChild(dbPath);
  children.push(c);
  return c;
}

describe('Idempotency: a keyed request whose server is killed (SIGKILL), then restarted on the same database', () => {
  it('killed while waiting with its key reserved, the retry executes exactly once; killed after commit, the retry replays', async () => {
    const dbPath = await database();
    const first = await boot(dbPath);
    const acct = await call(
      first,
      '/admin/v1/accounts',
      { balance: 100, depositAddress: null },
      { authorization: `Bearer ${ADMIN}` },
    );
    const key = acct.body.apiKey as string;
    const body = { amount: 10, currency: 'USDT' };
    const as = (idem: string, extra: Record<string, string> = {}) => ({
      'x-api-key': key,
      'idempotency-key': idem,
      ...extra,
    });

    // Committed before the kill; its answer counts as lost on the way to the client.
    const committed = await call(first, '/v1/card/create', body, as('committed'));
    expect(committed.status).toBe(200);
    // Held by a hold fault after reserving its key: nothing releases it, so it never finishes.
    const sandbox = (path: string, b: unknown) => call(first, `/sandbox/v1/${path}`, b, { 'x-api-key': key });
    expect((await sandbox('faults', { rules: [{ path: '/v1/card/create', hold: true }] })).status).toBe(200);
    const pending = call(first, '/v1/card/create', body, as('in-flight')).catch(() => 'lost');
    await waitFor('key in-flight in flight', () =>
      peek(dbPath, "SELECT 1 FROM idempotency_keys WHERE key = 'in-flight' AND state = 'in_flight'"),
    );
    expect((await call(first, '/v1/card/create', body, as('in-flight'))).body.code).toBe(4212);
    await kill(first);
    expect(await pending).toBe('lost');

    const second = await boot(dbPath);
    const replay = await call(second, '/v1/card/create', body, as('committed'));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(committed.body);
    // Released as the second starts on a SQLite file (one process serves it); on PostgreSQL, which other instances
    // may share, once the killed server's lease on the key has run out (4212 until then).
    const retry = await waitFor('the key the killed server held released', async () => {
      const r = await call(second, '/v1/card/create', body, as('in-flight'));
      return r.body.code === 4212 ? undefined : r;
    });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect((await call(second, '/v1/card/create', body, as('in-flight'))).headers.get('idempotent-replayed')).toBe(
      'true',
    );
    // Two executions in all: the wallet moved twice, two cards exist.
    const assets = await call(second, '/v1/wallet/assetList', {}, { 'x-api-key': key });
    expect(assets.body.assetList[0].availableAmount).toBe('80');
    expect((await call(second, '/v1/card/list', {}, { 'x-api-key': key })).body.cardList).toHaveLength(2);
  });
});
