// The noisy-neighbour run shared by `npm run bench:hosted` (figures) and test/hosted/noisy-neighbour.test.ts
// (outcomes only): well-behaved tenants at a steady rate, first alone, then while two abusive tenants send deep
// JSON, huge bodies, fault-rule floods, slow bodies and idle connections. Loopback only; bounded in count. The
// bench runs the abusers (`startAbusers`) in a process of their own (bench/hosted-abusers.mjs) so that their
// CPU does not delay the well-behaved clients' own event loop; the test runs everything in one process.
import { Agent, request } from 'node:http';
import { connect } from 'node:net';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One HTTP request; resolves with {status, ms} (status 0: no answer, the connection failed or was closed). */
function send(baseUrl, { method = 'POST', path, headers = {}, body, agent }) {
  return new Promise((resolve) => {
    const started = performance.now();
    let settled = false;
    const done = (status) => {
      if (settled) return;
      settled = true;
      resolve({ status, ms: performance.now() - started });
    };
    const req = request(new URL(path, baseUrl), { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
      res.on('error', () => done(res.statusCode ?? 0));
    });
    // The server may answer (413) before the client has sent its whole body, then close: the answer counts.
    req.on('error', () => done(0));
    if (body !== undefined) req.end(body);
    else req.end();
  });
}

const json = { 'content-type': 'application/json' };

async function admin(baseUrl, adminToken, path, body) {
  const res = await fetch(new URL(path, baseUrl), {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${adminToken}` },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

/** Creates `count` accounts through /admin/v1; returns their API keys. */
export async function createTenants(baseUrl, adminToken, count) {
  const keys = [];
  for (let i = 0; i < count; i++) {
    const acct = await admin(baseUrl, adminToken, '/admin/v1/accounts', { depositAddress: null, balance: 1000 });
    keys.push(acct.apiKey);
  }
  return keys;
}

const READS = ['/v1/wallet/assetList', '/v1/card/list'];

/** Each tenant sends `requests` reads, one every `intervalMs` (a steady rate, not as fast as possible). */
export async function wellBehaved(baseUrl, keys, requests, intervalMs) {
  const samples = [];
  await Promise.all(
    keys.map(async (key, t) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 2 });
      const started = performance.now();
      // Tenants start spread over one interval, so their requests do not arrive in lockstep.
      await sleep((t * intervalMs) / keys.length);
      for (let i = 0; i < requests; i++) {
        const due = started + i * intervalMs;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        const headers = { ...json, 'x-api-key': key };
        samples.push(await send(baseUrl, { path: READS[i % READS.length], headers, body: '{}', agent }));
      }
      agent.destroy();
    }),
  );
  return samples;
}

/** Runs `loop` on `parallel` workers until stopped; counts answers by status (0: no answer). */
export function abuse(parallel, loop) {
  const statuses = {};
  let stopped = false;
  const workers = Array.from({ length: parallel }, async () => {
    while (!stopped) {
      const { status } = await loop();
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  });
  return {
    statuses,
    async stop() {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

/** A body as long as the server accepts (1 MiB less a little) of nested arrays: 0.9 s of JSON.parse if parsed. */
function deepBody() {
  const depth = 500_000;
  return `{"a":${'['.repeat(depth)}${']'.repeat(depth)}}`;
}

/** Opens `count` connections that never send a byte; resolves once all are open, with a count of those closed. */
async function idleConnections(baseUrl, count) {
  const { hostname, port } = new URL(baseUrl);
  const sockets = [];
  let closedByServer = 0;
  let refused = 0;
  for (let i = 0; i < count; i++) {
    await new Promise((resolve) => {
      const s = connect(Number(port), hostname, () => resolve());
      s.on('error', () => {
        refused++;
        resolve();
      });
      s.on('close', () => {
        if (!s.destroyedByUs) closedByServer++;
      });
      s.resume();
      sockets.push(s);
    });
  }
  return {
    get closedByServer() {
      return closedByServer;
    },
    refused: () => refused,
    open: () => sockets.filter((s) => !s.destroyed).length,
    close() {
      for (const s of sockets) {
        s.destroyedByUs = true;
        s.destroy();
      }
    },
  };
}

/** A request whose body trickles in one byte every `everyMs`; resolves with the server's status (or 0). */
function slowBody(baseUrl, key, everyMs) {
  return new Promise((resolve) => {
    const { hostname, port } = new URL(baseUrl);
    const s = connect(Number(port), hostname);
    let answer = '';
    const timer = setInterval(() => s.writable && s.write(' '), everyMs);
    s.on('connect', () =>
      s.write(
        `POST /v1/card/list HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
          `X-API-KEY: ${key}\r\nContent-Length: 100000\r\n\r\n{`,
      ),
    );
    s.on('data', (d) => (answer += d));
    s.on('error', () => {});
    s.on('close', () => {
      clearInterval(timer);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0) });
    });
  });
}

/**
 * The two abusive tenants. A: deep JSON and huge bodies (declared and chunked). B: a fault-rule flood (a latency
 * rule and a respond rule, many requests in flight) and slow bodies. Plus `idle` silent connections.
 */
export async function startAbusers(baseUrl, [a, b], { idle, slowBodies, floodParallel, trickleMs, only }) {
  // Encoded once: a string body is encoded again on every send, CPU the abusers would take from the machine's
  // cores (and so from the server) on every request. The server receives the same bytes either way.
  const deep = Buffer.from(deepBody());
  const huge = Buffer.from(`{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const keyed = (key) => ({ ...json, 'x-api-key': key });
  const rules = {
    rules: [
      { path: '/v1/card/list', latencyMs: 1000 },
      { path: '/v1/wallet/assetList', respond: { httpStatus: 400, code: 400, message: 'injected' } },
    ],
  };
  const armed = await send(baseUrl, { path: '/sandbox/v1/faults', headers: keyed(b), body: JSON.stringify(rules) });
  if (armed.status !== 200) throw new Error(`arming faults: HTTP ${armed.status}`);
  const idleConns = await idleConnections(baseUrl, idle);
  const makers = {
    deepJson: () => abuse(2, () => send(baseUrl, { path: '/v1/card/list', headers: keyed(a), body: deep, agent })),
    hugeDeclared: () =>
      abuse(1, () => send(baseUrl, { path: '/v1/card/list', headers: keyed(a), body: huge, agent: false })),
    hugeChunked: () =>
      abuse(1, () =>
        send(baseUrl, {
          path: '/v1/card/list',
          headers: { ...keyed(a), 'transfer-encoding': 'chunked' },
          body: huge,
          agent: false,
        }),
      ),
    faultFlood: () =>
      abuse(floodParallel, () =>
        send(baseUrl, { path: READS[Math.floor(Math.random() * 2)], headers: keyed(b), body: '{}', agent }),
      ),
  };
  // `only` (BENCH_HOSTED_ABUSE): a subset of these floods, to see what each one costs the others.
  const kinds = Object.fromEntries(
    Object.entries(makers)
      .filter(([name]) => only === undefined || only.includes(name))
      .map(([name, make]) => [name, make()]),
  );
  const slow = Array.from({ length: slowBodies }, () => slowBody(baseUrl, b, trickleMs));
  return {
    /**
     * Stops the floods, then waits at most `waitForCutsMs` for the server to cut the slow bodies and the idle
     * connections (it stops waiting as soon as all are cut); closes whatever is left. Returns each abuse's outcomes.
     */
    async stop(waitForCutsMs) {
      for (const k of Object.values(kinds)) await k.stop();
      agent.destroy();
      const outcomes = Object.fromEntries(Object.entries(kinds).map(([name, k]) => [name, k.statuses]));
      const deadline = performance.now() + waitForCutsMs;
      const slowStatuses = {};
      for (const status of await Promise.race([
        Promise.all(slow).then((r) => r.map((x) => x.status)),
        sleep(waitForCutsMs).then(() => ['still open']),
      ])) {
        slowStatuses[status] = (slowStatuses[status] ?? 0) + 1;
      }
      while (idleConns.open() > 0 && performance.now() < deadline) await sleep(100);
      outcomes.slowBodies = slowStatuses;
      outcomes.idleConnections = {
        opened: idle - idleConns.refused(),
        refused: idleConns.refused(),
        closedByServer: idleConns.closedByServer,
        stillOpen: idleConns.open(),
      };
      idleConns.close();
      return outcomes;
    },
  };
}

const pct = (sorted, p) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;

export function summary(samples) {
  const ms = samples.map((s) => s.ms).sort((x, y) => x - y);
  const statuses = {};
  for (const s of samples) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
  return { requests: samples.length, p50: pct(ms, 50), p99: pct(ms, 99), max: ms[ms.length - 1], statuses };
}

/**
 * The whole run on one server: well-behaved tenants alone, then with the abusers. `waitForCuts` bounds how long
 * after the noisy phase the run waits for the server to cut slow bodies and idle connections (it stops as soon as
 * all are cut). Returns the well-behaved tenants' figures per phase and each abuse's outcomes.
 */
export async function noisyNeighbour({
  baseUrl,
  adminToken,
  tenants = 20,
  requestsPerTenant = 100,
  intervalMs = 100,
  idle = 1000,
  slowBodies = 20,
  floodParallel = 32,
  trickleMs = 500,
  waitForCutsMs = 60_000,
}) {
  const keys = await createTenants(baseUrl, adminToken, tenants + 2);
  const good = keys.slice(0, tenants);
  const abusive = keys.slice(tenants);
  await wellBehaved(baseUrl, good, 3, intervalMs); // warm-up: connections, caches, JIT
  const quiet = summary(await wellBehaved(baseUrl, good, requestsPerTenant, intervalMs));
  const abusers = await startAbusers(baseUrl, abusive, { idle, slowBodies, floodParallel, trickleMs });
  const noisy = summary(await wellBehaved(baseUrl, good, requestsPerTenant, intervalMs));
  const outcomes = await abusers.stop(waitForCutsMs);
  return { quiet, noisy, outcomes };
}
