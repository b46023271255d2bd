import { Agent, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { ConnectionLimits } from '../../src/http/connection-guard.js';
import { tenantHoldings } from '../../src/http/middleware/tenant-budget.js';
import { ensureBuilt, serveOn, stop, type ServeProcess } from '../helpers/cli-process.js';
import { HOSTED_ADMIN_TOKEN, startHosted, type HostedServer } from '../helpers/hosted-server.js';
import { untilClosed } from '../helpers/loopback.js';
import { waitFor } from '../helpers/wait.js';

// Bursts from one address (a CI runner's NAT, a load balancer): every request gets an HTTP answer. Before, a burst
// of 300 requests from one address had 236 connections closed without an answer (the per-address bound closed
// connections accepted a moment before, whose requests had not been read yet), and one tenant's connections from an
// address made another tenant's from the same address fail with a reset. Now a connection in its first moment is
// never closed to make room, a connection over a bound is held until its first request, which comes in when it
// carries a key (it counts against its tenant, not its address) and is answered 429 with Retry-After otherwise.
// Every address is a loopback one (127.0.0.0/8 is this host's), so one machine plays the NAT and the proxy. The bursts
// go to the compiled server in a process of its own, as a partner's would.

let served: (ServeProcess & { url: string }) | undefined;
let server: HostedServer | undefined;
const sockets: Socket[] = [];
beforeAll(() => ensureBuilt(), 120_000);
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  if (served) await stop(served);
  await server?.close(0);
  [served, server] = [undefined, undefined];
});

/**
 * `serve --mode hosted` in a process of its own; its URL and the connection caps it derived. A connection's first
 * moment is a tenth of the headers timeout: 6 s of 60 here, so how long the test takes to open its connections (some
 * 300 ms) decides nothing.
 */
async function serve(args: string[] = []) {
  const patient = ['--headers-timeout', '60000', '--request-timeout', '120000'];
  served = await serveOn(':memory:', ['--mode', 'hosted', '--rate-limit', '1000', ...patient, ...args], {
    SANDBOX_ADMIN_TOKEN: HOSTED_ADMIN_TOKEN,
  });
  const listening = served.logs().find((r) => r.msg === 'card sandbox listening')!;
  return { url: new URL(served.url), limits: listening.connections as ConnectionLimits };
}

/** A hosted server in this process (its deps in reach), for what does not hang on the order of accepts and reads. */
async function start(limits: Partial<Config['server']> = {}, config: Partial<Config> = {}) {
  server = await startHosted(limits, 'warn', 1_000, config);
  return { url: new URL(server.url), limits: server.connections! };
}

const admin = (url: URL, method: string, path: string, body?: unknown) =>
  fetch(new URL(path, url), {
    method,
    headers: { authorization: `Bearer ${HOSTED_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).then((res) => res.json() as Promise<Record<string, any>>);

const newAccount = (url: URL) =>
  admin(url, 'POST', '/admin/v1/accounts', { depositAddress: null, balance: 100 }) as Promise<{
    accountId: string;
    apiKey: string;
  }>;

const read = (key: string) =>
  `POST /v1/wallet/assetList HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${key}\r\nContent-Type: application/json\r\n` +
  'Content-Length: 2\r\nConnection: close\r\n\r\n{}';
const health = 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';

/** Connections the server holds without a proven credential: let in anonymous, or held over a bound (GET /metrics). */
async function anonymousHeld(url: URL): Promise<number> {
  const res = await fetch(new URL('/metrics', url), { headers: { authorization: `Bearer ${HOSTED_ADMIN_TOKEN}` } });
  const text = await res.text();
  const gauge = (state: string) =>
    Number(new RegExp(`^sandbox_connections\\{state="${state}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
  return gauge('anonymous') + gauge('held');
}

/**
 * `n` connections from `from`, opened at once; once the server has taken every one in, each sends `request`. What
 * each got before its connection closed (`closed unanswered` when nothing, `error CODE` on a reset). So the client is
 * slower than the server, as a busy CI runner is: the server meets connections whose requests have not come yet.
 */
async function burst(url: URL, n: number, request: string, from = '127.0.0.1') {
  const before = await anonymousHeld(url);
  const opened = Array.from({ length: n }, () => {
    const socket = connect({ port: Number(url.port), host: url.hostname, localAddress: from });
    sockets.push(socket);
    let text = '';
    let failed: string | undefined;
    socket.on('data', (d: Buffer) => (text += d.toString()));
    socket.on('error', (err: NodeJS.ErrnoException) => (failed = `error ${err.code}`));
    const answer = new Promise<string>((resolve) =>
      socket.on('close', () => resolve(text || failed || 'closed unanswered')),
    );
    return { socket, answer };
  });
  await waitFor(`the server holding ${n} more connections`, async () => (await anonymousHeld(url)) >= before + n);
  for (const { socket } of opened) socket.write(request);
  return Promise.all(opened.map((o) => o.answer));
}

/** One request on a connection of its own from `from`: what came back before the connection closed. */
function exchange(url: URL, request: string, from: string): Promise<string> {
  const socket = connect({ port: Number(url.port), host: url.hostname, localAddress: from }, () =>
    socket.write(request),
  );
  sockets.push(socket);
  return untilClosed(socket);
}

/** Each answer's status, and whether a 429 said when to retry; anything else as it came. */
function tally(answers: string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const a of answers) {
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(a)?.[1];
    const what =
      status === undefined
        ? a.slice(0, 40)
        : status === '429' && !/\r\nretry-after: \d+\r\n/i.test(a)
          ? '429 without Retry-After'
          : status;
    out.set(what, (out.get(what) ?? 0) + 1);
  }
  return out;
}

describe('a burst from one address is answered, every request', () => {
  it.each([
    ['keyed reads of one tenant', (key: string) => read(key)],
    ['requests without a key', () => health],
  ])(
    'a 300-request burst of %s: each answered 200 or 429 with Retry-After, none closed unanswered',
    async (_, request) => {
      const { url, limits } = await serve();
      const { apiKey } = await newAccount(url);
      // Past one address's share of connections, within what the server holds for an answer.
      const size = Math.min(300, limits.perClient + limits.refusals);
      expect(size).toBeGreaterThan(limits.perClient);
      const answers = tally(await burst(url, size, request(apiKey)));
      expect([...answers.keys()].filter((k) => k !== '200' && k !== '429')).toEqual([]);
      expect(answers.get('200')).toBeGreaterThan(0);
      expect((answers.get('200') ?? 0) + (answers.get('429') ?? 0)).toBe(size);
    },
  );

  it("one tenant's held connections and another tenant's burst from the same address (a NAT): the other is served", async () => {
    // A small share per address (8), so that the burst is well past it.
    const { url, limits } = await serve(['--max-connections', '512']);
    expect(limits.perClient).toBeLessThan(50);
    expect(50 - limits.perClient).toBeLessThanOrEqual(limits.refusals);
    const [a, b] = [await newAccount(url), await newAccount(url)];
    // Tenant A holds 16 connections, each with a request under way (its body withheld).
    const held = [];
    for (let i = 0; i < 16; i++) {
      const socket = connect({ port: Number(url.port), host: url.hostname, localAddress: '127.0.0.1' });
      sockets.push(socket);
      held.push({ socket, answer: untilClosed(socket) });
      socket.write(read(a.apiKey).slice(0, -2));
    }
    await waitFor(
      'A holds 16 requests',
      async () => (await admin(url, 'GET', `/admin/v1/accounts/${a.accountId}/usage`)).inFlight === 16,
    );
    const answers = tally(await burst(url, 50, read(b.apiKey)));
    expect([...answers]).toEqual([['200', 50]]);
    for (const { socket } of held) socket.write('{}');
    expect(tally(await Promise.all(held.map((h) => h.answer)))).toEqual(new Map([['200', 16]]));
  });
});

describe('behind a trusted proxy', () => {
  const PROXY = '127.0.0.5';

  it("the proxy's connections are not bounded per client: its idle ones never refuse another partner's request", async () => {
    const { url, limits } = await start({ maxConnections: 512 }, { trustProxy: [`${PROXY}/32`] });
    // More silent connections from the proxy than one client's share.
    for (let i = 0; i < limits.perClient + 4; i++) {
      const s = connect({ port: Number(url.port), host: url.hostname, localAddress: PROXY });
      sockets.push(s);
      s.on('error', () => {});
    }
    await waitFor(
      'the silent connections in',
      () => server!.deps.connectionGuard!.counts().open >= limits.perClient + 4,
    );
    expect(server!.deps.connectionGuard!.counts().held).toBe(0);
    const forwarded = 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 198.51.100.7\r\nConnection: close\r\n\r\n';
    const answers = tally(await Promise.all(Array.from({ length: 4 }, () => exchange(url, forwarded, PROXY))));
    expect([...answers]).toEqual([['200', 4]]);
  });

  it('a connection that carries one tenant’s request, then another’s, counts against the one it carries', async () => {
    const { url } = await start({}, { trustProxy: [`${PROXY}/32`] });
    const [a, b] = [await newAccount(url), await newAccount(url)];
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (key: string) =>
      new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: '/v1/wallet/assetList',
            method: 'POST',
            agent,
            localAddress: PROXY,
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket }));
          },
        );
        req.on('error', reject);
        req.end('{}');
      });
    expect(await send(a.apiKey)).toEqual({ status: 200, reused: false });
    expect(tenantHoldings(server!.deps, a.accountId).connections).toBe(1);
    expect(await send(b.apiKey)).toEqual({ status: 200, reused: true });
    expect(tenantHoldings(server!.deps, a.accountId).connections).toBe(0);
    expect(tenantHoldings(server!.deps, b.accountId).connections).toBe(1);
    agent.destroy();
    await waitFor('the connection let go', () => tenantHoldings(server!.deps, b.accountId).connections === 0);
  });
});
