import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, serveOn, type ServeProcess, stop } from '../helpers/cli-process.js';
import { waitFor } from '../helpers/wait.js';
import { untilClosed } from '../helpers/loopback.js';

// No lockout (hosted mode): a tenant can always let go of what it holds. A CI job that froze its clock, armed a 60 s
// latency and timed out with 32 requests held once locked its tenant out until a restart (every call a 429, the clock
// advance and a new key's included). Now a request whose client has gone stops counting at once, and what releases
// held requests (clock, faults/release, faults/clear, reset) and the operator API are never refused by the in-flight
// budget (contracts/index.json marks them `inFlightExempt`). Each case runs the compiled server as a partner's
// operator does, and waits on what the operator API shows (the tenant's usage), never on a duration.

const ADMIN = 'no-lockout-admin-token-0123456789';
let server: ServeProcess & { url: string };
const sockets: Socket[] = [];

beforeAll(async () => {
  ensureBuilt();
  server = await serveOn(':memory:', ['--mode', 'hosted', '--rate-limit', '1000'], { SANDBOX_ADMIN_TOKEN: ADMIN });
}, 120_000);
afterAll(async () => {
  if (server) await stop(server);
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
});

type Answer = { status: number; body: any };

/** One request on a connection of its own (a pooled one would count among the tenant's connections). */
function call(path: string, init: { key?: string; body?: unknown; method?: string; admin?: boolean } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.key) headers['x-api-key'] = init.key;
  if (init.admin) headers.authorization = `Bearer ${ADMIN}`;
  const body = init.method === 'GET' ? undefined : JSON.stringify(init.body ?? {});
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method: init.method ?? 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function newTenant(): Promise<{ accountId: string; apiKey: string }> {
  const created = await call('/admin/v1/accounts', { admin: true, body: { balance: 100, depositAddress: null } });
  expect(created.status).toBe(201);
  return created.body;
}

const inFlight = async (accountId: string) =>
  (await call(`/admin/v1/accounts/${accountId}/usage`, { admin: true, method: 'GET' })).body.inFlight as number;

/** A whole request sent on a raw connection, left waiting for its answer (`socket.destroy()` hangs up). */
async function sendAndWait(key: string, path: string): Promise<{ socket: Socket; answer: Promise<string> }> {
  const { port, hostname } = new URL(server.url);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(Number(port), hostname, () => resolve(s));
    s.once('error', reject);
  });
  sockets.push(socket);
  const answer = untilClosed(socket);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${key}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 2\r\nConnection: close\r\n\r\n{}',
  );
  return { socket, answer };
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);

describe('no lockout: a tenant can always release what it holds (hosted mode, a real server process)', () => {
  it('32 requests held by a 60 s latency on a frozen clock, then hung up: the tenant is served at once', async () => {
    const tenant = await newTenant();
    expect((await call('/sandbox/v1/clock', { key: tenant.apiKey, body: { mode: 'frozen' } })).status).toBe(200);
    const rule = { path: '/v1/card/list', count: 100, latencyMs: 60_000 };
    expect((await call('/sandbox/v1/faults', { key: tenant.apiKey, body: { rules: [rule] } })).status).toBe(200);
    const held = await Promise.all(Array.from({ length: 32 }, () => sendAndWait(tenant.apiKey, '/v1/card/list')));
    await waitFor('32 requests in flight', async () => (await inFlight(tenant.accountId)) === 32);
    // The budget is full: an ordinary request is refused, as before.
    expect((await call('/v1/wallet/assetList', { key: tenant.apiKey })).status).toBe(429);

    // The CI job times out: every connection goes.
    for (const h of held) h.socket.destroy();
    await waitFor('nothing in flight', async () => (await inFlight(tenant.accountId)) === 0);
    expect((await call('/v1/wallet/assetList', { key: tenant.apiKey })).status).toBe(200);
    const issued = await call(`/admin/v1/accounts/${tenant.accountId}/keys`, { admin: true, body: {} });
    expect((await call('/v1/wallet/assetList', { key: issued.body.apiKey })).status).toBe(200);
  });

  it('with 32 requests held, clock, the operator API, faults/release, faults/clear and reset are still served', async () => {
    const tenant = await newTenant();
    const key = tenant.apiKey;
    const rule = { path: '/v1/card/list', count: 100, hold: true };
    expect((await call('/sandbox/v1/faults', { key, body: { rules: [rule] } })).status).toBe(200);
    const held = await Promise.all(Array.from({ length: 32 }, () => sendAndWait(key, '/v1/card/list')));
    await waitFor('32 requests in flight', async () => (await inFlight(tenant.accountId)) === 32);
    expect((await call('/v1/wallet/assetList', { key })).status).toBe(429);
    expect((await call('/sandbox/v1/events', { key })).status).toBe(429);

    expect((await call('/sandbox/v1/clock', { key, body: { advanceSeconds: 60 } })).status).toBe(200);
    expect((await call(`/admin/v1/accounts/${tenant.accountId}`, { admin: true, method: 'GET' })).status).toBe(200);
    const released = await call('/sandbox/v1/faults/release', { key });
    expect(released).toEqual({ status: 200, body: { code: 0, message: 'ok', released: 32 } });
    expect((await Promise.all(held.map((h) => h.answer))).map(statusOf)).toEqual(Array(32).fill(200));

    // faults/clear and reset, with the budget full again, let them go too.
    for (const release of ['/sandbox/v1/faults/clear', '/sandbox/v1/reset']) {
      expect((await call('/sandbox/v1/faults', { key, body: { rules: [rule] } })).status).toBe(200);
      const again = await Promise.all(Array.from({ length: 32 }, () => sendAndWait(key, '/v1/card/list')));
      await waitFor('32 requests in flight', async () => (await inFlight(tenant.accountId)) === 32);
      expect((await call(release, { key })).status).toBe(200);
      expect((await Promise.all(again.map((h) => h.answer))).map(statusOf)).toEqual(Array(32).fill(200));
    }
    await waitFor('nothing in flight', async () => (await inFlight(tenant.accountId)) === 0);
  });

  it('a latency on a frozen clock is answered in wall time; a held keyed request abandoned by its client frees its key', async () => {
    const tenant = await newTenant();
    const key = tenant.apiKey;
    expect((await call('/sandbox/v1/clock', { key, body: { mode: 'frozen' } })).status).toBe(200);
    const latency = { path: '/v1/card/list', latencyMs: 200 };
    expect((await call('/sandbox/v1/faults', { key, body: { rules: [latency] } })).status).toBe(200);
    // Nothing moves the account clock: the answer comes once the wall clock has.
    expect((await call('/v1/card/list', { key })).status).toBe(200);

    const hold = { path: '/v1/card/create', hold: true };
    expect((await call('/sandbox/v1/faults', { key, body: { rules: [hold] } })).status).toBe(200);
    const { port, hostname } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    sockets.push(socket);
    socket.on('error', () => {});
    const create = '{"amount":10,"currency":"USDT"}';
    socket.write(
      `POST /v1/card/create HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${key}\r\nContent-Type: application/json\r\n` +
        `Idempotency-Key: ci-timeout\r\nContent-Length: ${create.length}\r\n\r\n${create}`,
    );
    await waitFor('the create in flight', async () => (await inFlight(tenant.accountId)) === 1);
    const retry = () =>
      new Promise<Answer & { replayed?: string }>((resolve, reject) => {
        const req = httpRequest(
          `${server.url}/v1/card/create`,
          {
            method: 'POST',
            agent: false,
            headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'ci-timeout' },
          },
          (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () =>
              resolve({
                status: res.statusCode!,
                body: JSON.parse(text),
                replayed: res.headers['idempotent-replayed'] as string | undefined,
              }),
            );
          },
        );
        req.on('error', reject);
        req.end(create);
      });
    // While its client waits, the key is in flight.
    expect((await retry()).body.code).toBe(4212);
    socket.destroy();
    await waitFor('nothing in flight', async () => (await inFlight(tenant.accountId)) === 0);
    // It never ran: the retry executes (once), and the one after replays it.
    const executed = await retry();
    expect([executed.status, executed.replayed]).toEqual([200, undefined]);
    expect((await retry()).replayed).toBe('true');
    const cards = await call('/v1/card/list', { key });
    expect(cards.body.cardList).toHaveLength(1);
  });
});
