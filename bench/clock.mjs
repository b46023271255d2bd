// node bench/clock.mjs (after npm run build): the fair clock's long runs, each beside another tenant whose reads are
// timed in the same run. The compiled server runs in hosted mode in its own process, on a database file.
// - parked: tenant P's clock is frozen and N jobs wait on it, due in 30 days (written into the database file directly,
//   the quickest way to park them); the other tenant's reads and the server's CPU, before and after, and idle.
// - month: tenant T drives 20 cards with traffic on a frozen clock and advances it a day at a time: each day's
//   advance time, and the other tenant's p99 during it.
// - concurrent: tenant C (20 cards x 300 stories a day) sends two 12-hour advances at once: how long each took, the
//   other tenant's worst answer meanwhile, and how long C's next request took.
// Environment: BENCH_CLOCK_DAYS (10), BENCH_CLOCK_CARDS (20), BENCH_CLOCK_PER_CARD (500), BENCH_CLOCK_PARKED
// (100000), BENCH_CLOCK_ONLY=parked,month,concurrent (default all), BENCH_CLOCK_BASELINE=DIR (also runs the build in
// DIR, another checkout after its own `npm run build`, for before/after figures), BENCH_CLOCK_OUT=FILE (default
// bench/runs/<date>-clock.md).
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { cpuSeconds } from './lib/load.mjs';
import { freePort, startNode } from './lib/procs.mjs';

const ADMIN_TOKEN = 'bench-clock-admin-token';
const DAYS = Number(process.env.BENCH_CLOCK_DAYS ?? 10);
const CARDS = Number(process.env.BENCH_CLOCK_CARDS ?? 20);
const PER_CARD = Number(process.env.BENCH_CLOCK_PER_CARD ?? 500);
const PARKED = Number(process.env.BENCH_CLOCK_PARKED ?? 100_000);
const ONLY = (process.env.BENCH_CLOCK_ONLY ?? 'parked,month,concurrent').split(',');
const BASELINE = process.env.BENCH_CLOCK_BASELINE;
const DAY_S = 86_400;
const log = (...a) => console.error('[bench:clock]', ...a);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function startServer(cwd) {
  const port = await freePort();
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-clock-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const db = join(dir, 'sandbox.db');
  const proc = await startNode(
    [
      'dist/src/cli/main.js',
      'serve',
      ...['--mode', 'hosted', '--admin-token', ADMIN_TOKEN, '--host', '127.0.0.1', '--port', String(port)],
      ...['--db', db, '--log-level', 'warn', '--rate-limit', '1000'],
    ],
    { healthUrl: `${baseUrl}/healthz`, cwd },
  );
  return { baseUrl, proc, dir, db, pid: proc.child.pid };
}

/** One JSON request; resolves with {status, body, ms}. */
function send(baseUrl, path, { key, body = {}, method = 'POST', agent, admin = false } = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const headers = { 'content-type': 'application/json' };
    if (key) headers['x-api-key'] = key;
    if (admin) headers.authorization = `Bearer ${ADMIN_TOKEN}`;
    const req = request(new URL(path, baseUrl), { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let json;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        resolve({ status: res.statusCode ?? 0, body: json, ms: performance.now() - started });
      });
    });
    req.on('error', () => resolve({ status: 0, body: undefined, ms: performance.now() - started }));
    req.end(method === 'GET' ? undefined : JSON.stringify(body));
  });
}

async function ok(promise, what) {
  const res = await promise;
  if (res.status >= 300) throw new Error(`${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

async function account(server, balance = 1_000_000) {
  return ok(
    send(server.baseUrl, '/admin/v1/accounts', {
      admin: true,
      body: { depositAddress: null, balance, depositFeeRate: '0' },
    }),
    'account',
  );
}

/** A tenant with `cards` cards of 2,000 each on a frozen clock. */
async function cardTenant(server, cards) {
  const acct = await account(server);
  const post = (path, body) => ok(send(server.baseUrl, path, { key: acct.apiKey, body }), path);
  await post('/sandbox/v1/clock', { mode: 'frozen' });
  for (let i = 0; i < cards; i++) await post('/v1/card/create', { amount: 2000, currency: 'USDT' });
  return { ...acct, post };
}

/** The other tenant: one read every `intervalMs` until `stop()`; answers its latencies and statuses. */
function otherTenant(server, key, intervalMs = 20) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples = [];
  let running = true;
  const done = (async () => {
    for (let i = 0; running; i++) {
      const started = performance.now();
      const path = i % 2 ? '/v1/card/list' : '/v1/wallet/assetList';
      samples.push(await send(server.baseUrl, path, { key, agent }));
      const wait = intervalMs - (performance.now() - started);
      if (wait > 0) await sleep(wait);
    }
  })();
  return {
    async stop() {
      running = false;
      await done;
      agent.destroy();
      return samples;
    },
  };
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const stats = (samples) => ({
  n: samples.length,
  p50: pct(
    samples.map((s) => s.ms),
    50,
  ),
  p99: pct(
    samples.map((s) => s.ms),
    99,
  ),
  max: Math.max(...samples.map((s) => s.ms)),
  failed: samples.filter((s) => s.status !== 200).length,
});
const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');

/** The other tenant's reads for `ms`, with the server's CPU per 100 of them. */
async function measureOther(server, key, ms) {
  const cpu0 = cpuSeconds(server.pid);
  const other = otherTenant(server, key);
  await sleep(ms);
  const samples = await other.stop();
  const cpuMs = (cpuSeconds(server.pid) - cpu0) * 1000;
  return { ...stats(samples), cpuPer100Ms: (cpuMs / samples.length) * 100 };
}

async function idleCpu(server, ms = 10_000) {
  const cpu0 = cpuSeconds(server.pid);
  await sleep(ms);
  return cpuSeconds(server.pid) - cpu0;
}

async function parked(server, otherKey) {
  const quiet = await measureOther(server, otherKey, 10_000);
  const quietIdle = await idleCpu(server);
  const p = await account(server);
  await ok(send(server.baseUrl, '/sandbox/v1/clock', { key: p.apiKey, body: { mode: 'frozen' } }), 'freeze');
  const db = new Database(server.db);
  db.pragma('busy_timeout = 5000');
  const dueAt = Date.now() + 30 * DAY_S * 1000;
  const insert = db.prepare('INSERT INTO jobs (account_id, due_at_ms, kind, ref) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < PARKED; i++) insert.run(p.accountId, dueAt + i, 'txn.expire', `txn_parked_${i}`);
  })();
  db.close();
  const withParked = await measureOther(server, otherKey, 10_000);
  const parkedIdle = await idleCpu(server);
  return { quiet, quietIdle, withParked, parkedIdle };
}

async function month(server, otherKey) {
  const t = await cardTenant(server, CARDS);
  const run = await t.post('/sandbox/v1/traffic/start', { days: DAYS, perCardPerDay: PER_CARD, seed: 42 });
  const days = [];
  for (let d = 0; d < DAYS; d++) {
    const cpu0 = cpuSeconds(server.pid);
    const other = otherTenant(server, otherKey);
    const started = performance.now();
    const res = await send(server.baseUrl, '/sandbox/v1/clock', { key: t.apiKey, body: { advanceSeconds: DAY_S } });
    const seconds = (performance.now() - started) / 1000;
    const s = stats(await other.stop());
    days.push({ day: d + 1, seconds, status: res.status, other: s, serverCpu: cpuSeconds(server.pid) - cpu0 });
    log(`day ${d + 1}: ${f(seconds)} s, other p99 ${f(s.p99)} ms (max ${f(s.max)})`);
  }
  await t.post('/sandbox/v1/traffic/stop', { trafficId: run.trafficId });
  return days;
}

async function concurrent(server, otherKey) {
  const c = await cardTenant(server, CARDS);
  await c.post('/sandbox/v1/traffic/start', { days: 2, perCardPerDay: 300, seed: 7 });
  const before = await c.post('/sandbox/v1/clock', {});
  const other = otherTenant(server, otherKey);
  const advance = () =>
    send(server.baseUrl, '/sandbox/v1/clock', { key: c.apiKey, body: { advanceSeconds: DAY_S / 2 } });
  const started = performance.now();
  const [a, b] = await Promise.all([advance(), advance()]);
  const both = (performance.now() - started) / 1000;
  const next = await send(server.baseUrl, '/v1/card/list', { key: c.apiKey });
  const s = stats(await other.stop());
  return { before: before.now, a, b, both, next, other: s };
}

async function runBuild(name, cwd) {
  log(`${name}: starting the server in ${cwd}`);
  const server = await startServer(cwd);
  try {
    const other = await cardTenant(server, 2);
    await ok(send(server.baseUrl, '/sandbox/v1/clock', { key: other.apiKey, body: { mode: 'running' } }), 'run');
    const out = { name };
    if (ONLY.includes('parked')) out.parked = await parked(server, other.apiKey);
    if (ONLY.includes('month')) out.month = await month(server, other.apiKey);
    if (ONLY.includes('concurrent')) out.concurrent = await concurrent(server, other.apiKey);
    return out;
  } finally {
    await server.proc.stop();
    rmSync(server.dir, { recursive: true, force: true });
  }
}

const results = [await runBuild('this build', process.cwd())];
if (BASELINE) results.push(await runBuild('baseline', BASELINE));

const lines = [
  `# Fair clock (\`node bench/clock.mjs\`), ${new Date().toISOString().slice(0, 16)} UTC`,
  '',
  `Machine: ${os.cpus().length} cores, load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')} at the end, Node ${process.version}. The other tenant reads (wallet/assetList, card/list) one`,
  'at a time, one every 20 ms. Times in ms unless marked.',
  '',
];
for (const r of results) {
  lines.push(`## ${r.name}`, '');
  if (r.parked) {
    const { quiet, withParked, quietIdle, parkedIdle } = r.parked;
    lines.push(
      `Parked: ${PARKED} jobs on tenant P's frozen clock, due in 30 days.`,
      '',
      '| | other p50 | other p99 | other max | server CPU ms per 100 | idle server CPU s per 10 s |',
      '| --- | --- | --- | --- | --- | --- |',
      `| before | ${f(quiet.p50)} | ${f(quiet.p99)} | ${f(quiet.max)} | ${f(quiet.cpuPer100Ms, 0)} | ${f(quietIdle, 2)} |`,
      `| parked | ${f(withParked.p50)} | ${f(withParked.p99)} | ${f(withParked.max)} | ${f(withParked.cpuPer100Ms, 0)} | ${f(parkedIdle, 2)} |`,
      '',
    );
  }
  if (r.month) {
    lines.push(
      `Traffic: ${CARDS} cards x ${PER_CARD} stories a day, ${DAYS} days, advanced a day at a time on a frozen clock.`,
      '',
      '| day | advance s | server CPU s | other p50 | other p99 | other max | other not 200 |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...r.month.map(
        (d) =>
          `| ${d.day} | ${f(d.seconds)} | ${f(d.serverCpu)} | ${f(d.other.p50)} | ${f(d.other.p99)} | ${f(d.other.max)} | ${d.other.failed} |`,
      ),
      '',
    );
  }
  if (r.concurrent) {
    const c = r.concurrent;
    lines.push(
      `Concurrent: two 12-hour advances sent at once by tenant C (${CARDS} cards x 300 stories a day).`,
      '',
      `- the advances: ${f(c.a.ms / 1000)} s and ${f(c.b.ms / 1000)} s (HTTP ${c.a.status}, ${c.b.status}); clock ${c.before} -> ${c.a.body?.now} and ${c.b.body?.now}`,
      `- C's next request (card/list): ${f(c.next.ms)} ms, HTTP ${c.next.status}`,
      `- the other tenant meanwhile: ${c.other.n} reads, p50 ${f(c.other.p50)}, p99 ${f(c.other.p99)}, max ${f(c.other.max)}, not 200: ${c.other.failed}`,
      '',
    );
  }
}
const out =
  process.env.BENCH_CLOCK_OUT ?? `bench/runs/${new Date().toISOString().slice(0, 16).replace(':', '')}-clock.md`;
writeFileSync(out, lines.join('\n'));
console.log(lines.join('\n'));
