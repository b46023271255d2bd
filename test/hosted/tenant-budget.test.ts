import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type Config } from '../../src/config.js';
import { heldRefusals } from '../../src/http/middleware/rate-limit.js';
import { waitFor } from '../helpers/wait.js';
import { HOSTED_ADMIN_TOKEN, startHosted, type HostedServer } from '../helpers/hosted-server.js';
import { untilClosed } from '../helpers/loopback.js';

// Hosted mode: a tenant (an account and its live child sandboxes) is the unit of every budget. Its requests in
// flight and its connections are bounded together, well below the server's cap, so one tenant with a dozen children
// cannot take the connections every tenant shares; a request whose child sandbox is deleted while it runs answers
// 401, never 500. Every wait is on a state the operator API shows (the tenant's usage), never on a duration.

let server: HostedServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await server?.close(0);
  server = undefined;
});

async function start(tenant: Partial<Config['tenant']>): Promise<HostedServer> {
  server = await startHosted({}, 'info', 1_000, { tenant: { ...DEFAULT_CONFIG.tenant, ...tenant } });
  return server;
}

interface Tenant {
  accountId: string;
  apiKey: string;
  children: { accountId: string; apiKey: string }[];
}

/** One request on a connection of its own, closed after it (a pooled connection would count for the tenant). */
function call(path: string, init: { key?: string; body?: unknown; admin?: string; method?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.key) headers['x-api-key'] = init.key;
  if (init.admin) headers.authorization = `Bearer ${init.admin}`;
  const body = init.method === 'GET' ? undefined : JSON.stringify(init.body ?? {});
  return new Promise<{ status: number; headers: IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const req = httpRequest(
      `${server!.url}${path}`,
      { method: init.method ?? 'POST', headers, agent: false },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : {} }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function tenantWith(children: number): Promise<Tenant> {
  const created = await call('/admin/v1/accounts', { admin: HOSTED_ADMIN_TOKEN, body: { balance: 100 } });
  const tenant: Tenant = { accountId: created.body.accountId, apiKey: created.body.apiKey, children: [] };
  for (let i = 0; i < children; i++) {
    const child = await call('/sandbox/v1/sandboxes/create', { key: tenant.apiKey, body: { balance: 100 } });
    tenant.children.push({ accountId: child.body.accountId, apiKey: child.body.apiKey });
  }
  return tenant;
}

const usage = async (accountId: string) =>
  (await call(`/admin/v1/accounts/${accountId}/usage`, { admin: HOSTED_ADMIN_TOKEN, method: 'GET' })).body as {
    inFlight: number;
    connections: number;
  };

/** A request whose headers are sent and whose 2-byte body is not: it stays in flight until `finish()`. */
async function held(key: string, path: string, body = '{}') {
  const socket = await server!.socket();
  sockets.push(socket);
  const answer = untilClosed(socket);
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`,
  );
  return {
    finish: () => {
      socket.write(body);
      return answer;
    },
  };
}

/** One keep-alive connection that has carried a request of the key, left open. */
async function openConnection(key: string): Promise<string> {
  const socket = await server!.socket();
  sockets.push(socket);
  return new Promise((resolve) => {
    socket.once('data', (d: Buffer) => resolve(d.toString()));
    socket.write(
      `POST /v1/wallet/assetList HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${key}\r\nContent-Type: application/json\r\n` +
        'Content-Length: 2\r\n\r\n{}',
    );
  });
}

const statusOf = (raw: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1]);

describe('hosted mode: a tenant is one budget', () => {
  it('bounds the requests a tenant holds in flight across its children: past it 429 at once, connection closed', async () => {
    await start({ maxInFlight: 4 });
    const tenant = await tenantWith(2);
    const other = await tenantWith(0);
    const keys = [tenant.apiKey, ...tenant.children.map((c) => c.apiKey), tenant.apiKey];
    const inFlight = await Promise.all(keys.map((key) => held(key, '/v1/card/list')));
    await waitFor('four requests in flight', async () => (await usage(tenant.accountId)).inFlight === 4);

    const refused = await call('/v1/card/list', { key: tenant.children[1]!.apiKey });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      code: 429,
      message: 'Too many requests: an account and its child sandboxes hold at most 4 requests in flight at once',
    });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers.connection).toBe('close');
    expect((await call('/v1/card/list', { key: other.apiKey })).status).toBe(200);

    const answers = await Promise.all(inFlight.map((h) => h.finish()));
    expect(answers.map(statusOf)).toEqual([200, 200, 200, 200]);
    await waitFor('nothing in flight', async () => (await usage(tenant.accountId)).inFlight === 0);
    expect((await call('/v1/card/list', { key: tenant.children[1]!.apiKey })).status).toBe(200);
  });

  it('bounds the connections a tenant holds across its keys; another tenant still connects', async () => {
    await start({ maxConnections: 3 });
    const tenant = await tenantWith(2);
    const other = await tenantWith(0);
    const keys = [tenant.apiKey, ...tenant.children.map((c) => c.apiKey)];
    for (const key of keys) expect(statusOf(await openConnection(key))).toBe(200);
    await waitFor('three connections', async () => (await usage(tenant.accountId)).connections === 3);

    const fourth = await openConnection(tenant.children[0]!.apiKey);
    expect(statusOf(fourth)).toBe(429);
    expect(fourth).toMatch(/\r\nconnection: close\r\n/i);
    expect(statusOf(await openConnection(other.apiKey))).toBe(200);

    sockets[0]!.destroy();
    await waitFor('a connection let go', async () => (await usage(tenant.accountId)).connections === 2);
    expect(statusOf(await openConnection(tenant.apiKey))).toBe(200);
  });
});

describe('hosted mode: a request whose client has gone', () => {
  it('stops counting in flight at once, while what it still does (a held 429) goes on', async () => {
    server = await startHosted({}, 'info', 1, {
      tenant: { ...DEFAULT_CONFIG.tenant, maxInFlight: 4 },
      rateLimitHoldMs: 30_000,
    });
    const tenant = await tenantWith(0);
    // One request a second: of five sent together, the budget's one token answers one, the others' 429s are held.
    const sent = await Promise.all(Array.from({ length: 5 }, () => held(tenant.apiKey, '/v1/card/list')));
    for (const request of sent) void request.finish();
    const holding = await waitFor('held 429s in flight', async () => {
      const n = heldRefusals(server!.deps, tenant.accountId);
      return n >= 3 && (await usage(tenant.accountId)).inFlight === n && n;
    });
    expect(holding).toBeLessThanOrEqual(4);
    // The client hangs up: nobody waits for those answers, so they count no more, though their timers still run.
    for (const s of sockets) s.destroy();
    await waitFor('nothing in flight', async () => (await usage(tenant.accountId)).inFlight === 0);
    expect(heldRefusals(server!.deps, tenant.accountId)).toBe(holding);
  });
});

describe("hosted mode: a deleted child's request in flight", () => {
  const paths: [string, unknown][] = [
    ['/v1/card/create', { amount: 10, currency: 'USDT' }],
    ['/v1/card/list', {}],
    ['/sandbox/v1/wallet/seed', { amount: 1 }],
    ['/sandbox/v1/faults', { rules: [] }],
    ['/sandbox/v1/clock', { advanceSeconds: 1 }],
    ['/sandbox/v1/reset', {}],
    ['/sandbox/v1/events', {}],
  ];

  it.each(paths)('%s answers 401 code 11002 (its key stopped working), never a 500', async (path, body) => {
    const hosted = await start({});
    const tenant = await tenantWith(1);
    const child = tenant.children[0]!;
    const request = await held(child.apiKey, path, JSON.stringify(body));
    // Its connection is the tenant's once the request passed authentication (clock and reset count in no in-flight
    // budget, so the connection, not the in-flight count, says so).
    await waitFor('the request authenticated', async () => (await usage(tenant.accountId)).connections === 1);
    const deleted = await call('/sandbox/v1/sandboxes/delete', {
      key: tenant.apiKey,
      body: { accountId: child.accountId },
    });
    expect(deleted.status).toBe(200);
    const raw = await request.finish();
    expect(statusOf(raw)).toBe(401);
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({
      code: 11002,
      message: 'Invalid or revoked API key: its sandbox was deleted',
    });
    expect(hosted.logs.records.filter((r) => Number(r.level) >= 50)).toEqual([]);
  });
});

describe('hosted mode: a client that goes away while a latency fault holds its request', () => {
  it('is logged at info as aborted (499), never as an unexpected error or a 5xx', async () => {
    const hosted = await start({});
    const tenant = await tenantWith(0);
    const set = await call('/sandbox/v1/faults', {
      key: tenant.apiKey,
      body: { rules: [{ path: '/v1/card/list', latencyMs: 300 }] },
    });
    expect(set.status).toBe(200);
    const request = await held(tenant.apiKey, '/v1/card/list');
    void request.finish();
    await waitFor('the request held by the fault', async () => (await usage(tenant.accountId)).inFlight === 1);
    sockets.at(-1)!.destroy();
    const line = await waitFor('the request logged', () =>
      hosted.logs.records.find((r) => r.path === '/v1/card/list' && r.msg !== 'request received'),
    );
    expect(line).toMatchObject({ msg: 'request aborted by the client', status: 499, level: 30 });
    await waitFor('nothing in flight', async () => (await usage(tenant.accountId)).inFlight === 0);
    expect(hosted.logs.records.filter((r) => Number(r.level) >= 40)).toEqual([]);
  });
});
