import { createServer, Socket, type Server } from 'node:net';
import { inject } from 'vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresCopy, onPostgres } from '../helpers/postgres.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { newCard } from '../helpers/core.js';
import { waitFor } from '../helpers/wait.js';

// Behaviour.md section 15: PostgreSQL lost while serving. Every request that needs it answers 503 {code: 503,
// message} with Retry-After, never a 500 and never a hang; serving resumes by itself when it is back; a keyed retry
// after a 503 executes once. The database is reached through a TCP relay the test cuts and restores.

const NO_NETWORK_DATABASE =
  'SQLite is a file in the process: there is no database to lose (run with TEST_STORE=postgres)';

/** A relay to PostgreSQL that can drop every connection and refuse new ones, then let them through again. */
async function relay(targetPort: number) {
  const sockets = new Set<Socket>();
  let cut = false;
  let silent = false;
  const server: Server = createServer((client) => {
    if (cut) return client.destroy();
    const upstream = new Socket();
    upstream.connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    // Silent: bytes go nowhere, as on a network that stopped carrying them (no reset, no refusal).
    client.on('data', (d) => silent || upstream.write(d));
    upstream.on('data', (d) => silent || client.write(d));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    cut() {
      cut = true;
      for (const s of sockets) s.destroy();
    },
    silence() {
      silent = true;
    },
    restore() {
      cut = false;
      silent = false;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

let sb: TestSandbox | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await sb?.close();
  sb = undefined;
  for (const c of cleanups.splice(0)) await c();
});

async function sandboxThroughRelay() {
  const db = await postgresCopy();
  const link = await relay(db.port);
  cleanups.push(db.drop, link.close);
  const url = new URL(inject('postgresUrl'));
  url.port = String(link.port);
  url.pathname = `/${db.name}`;
  sb = createTestSandbox({ config: { dbPath: url.toString() } });
  return { sb, link };
}

describe('a PostgreSQL database lost while serving', () => {
  it('answers 503 {code: 503} with Retry-After while it is gone, resumes by itself, and a keyed retry executes once', async ({
    skip,
  }) => {
    if (!onPostgres) return skip(NO_NETWORK_DATABASE);
    const { sb, link } = await sandboxThroughRelay();
    const acct = await sb.account({ balance: 100 });
    await newCard(sb, acct.apiKey, 10);

    link.cut();
    const create = () =>
      sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' }, { 'Idempotency-Key': 'outage-1' });
    for (const res of [await sb.post(acct.apiKey, '/v1/wallet/assetList'), await create()]) {
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ code: 503, message: expect.any(String) });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }

    link.restore();
    // The client retries as a client would, until the store answers again (each 503 changed nothing).
    const retry = await waitFor('the keyed retry answered', async () => {
      const res = await create();
      return res.status === 503 ? undefined : res;
    });
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const again = await create();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(retry.body);
    // The first card, and the keyed one once.
    const list = await sb.post(acct.apiKey, '/v1/card/list', {});
    expect(list.body.cardList).toHaveLength(2);
  });

  it('answers 503 when the network to it goes silent (no reset, no refusal), and resumes when it carries again', async ({
    skip,
  }) => {
    if (!onPostgres) return skip(NO_NETWORK_DATABASE);
    const { sb, link } = await sandboxThroughRelay();
    const acct = await sb.account({ balance: 100 });
    link.silence();
    const res = await sb.post(acct.apiKey, '/v1/wallet/assetList');
    expect(res.status).toBe(503);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    link.restore();
    // A connection that went silent is dropped by the pool; a new one serves once the store tries it again.
    const read = await waitFor('a read answered', async () => {
      const res = await sb.post(acct.apiKey, '/v1/wallet/assetList');
      return res.status === 503 ? undefined : res;
    });
    expect(read.status).toBe(200);
  });
});
