// npm run bench:hosted: the noisy-neighbour load test. Three processes: the compiled server in hosted mode on
// loopback; this one, which makes 22 accounts through /admin/v1 and times 20 well-behaved tenants; and
// bench/hosted-abusers.mjs, which runs 2 abusive tenants (deep JSON, huge bodies, fault-rule floods, slow bodies,
// 1,000 idle connections). Phases alternate, alone then beside the abusers, for several rounds; it writes
// bench/hosted-results.md. Environment: BENCH_HOSTED_ROUNDS (default 2), BENCH_HOSTED_REQUESTS (per tenant and
// phase, default 150), BENCH_HOSTED_INTERVAL_MS (default 100); BENCH_HOSTED_INLINE=1 adds a phase per round with
// the abusers in this process (the old layout, to see what the load generator itself costs);
// BENCH_HOSTED_FLOOD sets the fault-rule flood's requests in flight (default 32; 0: no flood); BENCH_HOSTED_IDLE the
// idle connections (default 1,000; 0: none, to see what they cost), BENCH_HOSTED_SLOW the slow bodies (default 20);
// BENCH_HOSTED_ABUSE=deepJson,hugeDeclared,hugeChunked,faultFlood runs only the floods named (default all);
// BENCH_HOSTED_CLOCK=0 leaves out the phase beside the clock abusers (bench/lib/clock-abuse.mjs: traffic at its bound
// advanced by two half-day advances at once, and snapshot import-delete cycles);
// BENCH_HOSTED_CPU_PROF=DIR runs the server under `node --cpu-prof` and writes its profile to DIR;
// BENCH_HOSTED_BASELINE=DIR also runs the server built in DIR (another checkout, after `npm run build` there), its
// phases interleaved with this build's in every round, so a change is measured side by side with what it changes.
import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { cpuSeconds } from './lib/load.mjs';
import { createTenants, startAbusers, summary, wellBehaved } from './lib/noisy.mjs';
import { freePort, startNode } from './lib/procs.mjs';

const ADMIN_TOKEN = 'bench-hosted-admin-token';
const ROUNDS = Number(process.env.BENCH_HOSTED_ROUNDS ?? 2);
const REQUESTS = Number(process.env.BENCH_HOSTED_REQUESTS ?? 150);
const INTERVAL_MS = Number(process.env.BENCH_HOSTED_INTERVAL_MS ?? 100);
const INLINE = process.env.BENCH_HOSTED_INLINE === '1';
const CPU_PROF = process.env.BENCH_HOSTED_CPU_PROF;
const BASELINE = process.env.BENCH_HOSTED_BASELINE;
// Short enough that the server cuts slow bodies and idle connections within a phase; the hosted defaults (10 s,
// 30 s) cut the same clients, later.
const HEADERS_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;
const ABUSE = {
  idle: Number(process.env.BENCH_HOSTED_IDLE ?? 1000),
  slowBodies: Number(process.env.BENCH_HOSTED_SLOW ?? 20),
  only: process.env.BENCH_HOSTED_ABUSE?.split(','),
  floodParallel: Number(process.env.BENCH_HOSTED_FLOOD ?? 32),
  trickleMs: 500,
  // BENCH_HOSTED_TENANT=0 leaves out the tenant that abuses through 12 child sandboxes.
  tenant: process.env.BENCH_HOSTED_TENANT !== '0',
};
const CLOCK = process.env.BENCH_HOSTED_CLOCK !== '0';
const TENANTS = 20;
const log = (...a) => console.error('[bench:hosted]', ...a);

/** The compiled server of the checkout in `cwd`, in hosted mode, in its own process. */
async function startServer(cwd) {
  const port = await freePort();
  // A database file, so that what the tenants make the server keep on disk can be measured.
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-hosted-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const proc = await startNode(
    [
      ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []),
      'dist/src/cli/main.js',
      'serve',
      ...['--mode', 'hosted', '--admin-token', ADMIN_TOKEN, '--host', '127.0.0.1', '--port', String(port)],
      ...['--db', join(dir, 'sandbox.db'), '--log-level', 'warn'],
      ...['--headers-timeout', String(HEADERS_TIMEOUT_MS), '--request-timeout', String(REQUEST_TIMEOUT_MS)],
    ],
    { healthUrl: `${baseUrl}/healthz`, cwd },
  );
  return { baseUrl, proc, dir, db: join(dir, 'sandbox.db') };
}

/** Resident memory of a process in MB, from /proc (Linux); NaN elsewhere. */
function rssMb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return NaN;
  }
}

/** The database file and its WAL, in MB. */
function dbMb(file) {
  const size = (f) => (existsSync(f) ? statSync(f).size : 0);
  return (size(file) + size(`${file}-wal`)) / 1024 / 1024;
}

/** An account through the operator API: its id and key. */
async function account(baseUrl, balance = 1000) {
  const res = await fetch(`${baseUrl}/admin/v1/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ depositAddress: null, balance, depositFeeRate: '0' }),
  });
  return res.json();
}

/** What the tenant of `accountId` holds now (GET /admin/v1/accounts/{id}/usage). */
async function usage(baseUrl, accountId) {
  const res = await fetch(`${baseUrl}/admin/v1/accounts/${accountId}/usage`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return res.json();
}

/** The abusers' process: `start` and `stop` resolve with its replies. */
function abuserProcess() {
  const child = fork(new URL('./hosted-abusers.mjs', import.meta.url), {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const replies = [];
  let waiting;
  child.on('message', (m) => (waiting ? (waiting(m), (waiting = undefined)) : replies.push(m)));
  const next = () => new Promise((resolve) => (replies.length ? resolve(replies.shift()) : (waiting = resolve)));
  return {
    ready: next(),
    async start(baseUrl, keys) {
      child.send({ type: 'start', baseUrl, keys, options: ABUSE });
      await next();
    },
    async prepareClock(baseUrl, keys) {
      child.send({ type: 'prepareClock', baseUrl, keys });
      await next();
    },
    async startClock(baseUrl) {
      child.send({ type: 'startClock', baseUrl });
      await next();
    },
    async stop(waitForCutsMs) {
      child.send({ type: 'stop', waitForCutsMs });
      return (await next()).outcomes;
    },
    pid: child.pid,
    exit: () => child.send({ type: 'exit' }),
  };
}

/** Adds each count of `more` into `into` (outcomes summed over rounds). */
function addCounts(into, more) {
  for (const [abuse, counts] of Object.entries(more)) {
    into[abuse] ??= {};
    for (const [k, n] of Object.entries(counts)) into[abuse][k] = (into[abuse][k] ?? 0) + n;
  }
}

const kinds = [
  'alone',
  'beside the abusers',
  ...(CLOCK ? ['beside the clock abusers'] : []),
  ...(INLINE ? ['beside the abusers, same process as the clients'] : []),
];
const builds = [{ name: 'this build', cwd: process.cwd() }, ...(BASELINE ? [{ name: 'baseline', cwd: BASELINE }] : [])];
const phaseName = (build, kind) => (builds.length > 1 ? `${build.name}: ${kind}` : kind);
const phases = builds.flatMap((b) => kinds.map((k) => phaseName(b, k)));
const samples = Object.fromEntries(phases.map((p) => [p, []]));
const rounds = Object.fromEntries(phases.map((p) => [p, []]));
/** Per phase: wall seconds and CPU seconds of the server, the abusers' process and this one (the clients). */
const cpu = Object.fromEntries(phases.map((p) => [p, { wall: 0, server: 0, abusers: 0, clients: 0, requests: 0 }]));
/** Per phase: the largest growth of the server's RSS and database (MB) over a phase. */
const kept = Object.fromEntries(phases.map((p) => [p, { rss: 0, db: 0, rssPeak: 0 }]));
/** The abusive tenant's request-log bytes after each noisy phase, beside its bound. */
const tenantLog = [];
const outcomes = Object.fromEntries(builds.map((b) => [b.name, {}]));
const waitForCutsMs = REQUEST_TIMEOUT_MS + 5_000;
let abusers;
try {
  abusers = abuserProcess();
  await abusers.ready;
  for (const build of builds) {
    build.server = await startServer(build.cwd);
    const keys = await createTenants(build.server.baseUrl, ADMIN_TOKEN, TENANTS + 2);
    build.good = keys.slice(0, TENANTS);
    build.parent = await account(build.server.baseUrl);
    build.abusive = [...keys.slice(TENANTS), build.parent.apiKey];
    if (CLOCK) {
      const clockKeys = [
        (await account(build.server.baseUrl, 1e6)).apiKey,
        (await account(build.server.baseUrl, 1e6)).apiKey,
      ];
      log(`${build.name}: preparing the clock abusers (cards, traffic at its bound, a snapshot)`);
      await abusers.prepareClock(build.server.baseUrl, clockKeys);
    }
    await wellBehaved(build.server.baseUrl, build.good, 3, INTERVAL_MS); // warm-up: connections, caches, JIT
  }
  log(`${ROUNDS} rounds of: ${phases.join(' / ')}; ${TENANTS} tenants x ${REQUESTS} requests every ${INTERVAL_MS} ms`);
  for (let r = 0; r < ROUNDS; r++) {
    for (const build of builds) {
      const { baseUrl } = build.server;
      for (const kind of kinds) {
        let stop;
        const pid = build.server.proc.child.pid;
        const memBefore = { rss: rssMb(pid), db: dbMb(build.server.db) };
        let rssPeak = memBefore.rss;
        const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb(pid))), 250);
        const before = {
          wall: performance.now() / 1000,
          server: cpuSeconds(build.server.proc.child.pid),
          abusers: cpuSeconds(abusers.pid),
          clients: cpuSeconds(process.pid),
        };
        if (kind === 'beside the abusers') {
          await abusers.start(baseUrl, build.abusive);
          stop = () => abusers.stop(waitForCutsMs);
        } else if (kind === 'beside the clock abusers') {
          await abusers.startClock(baseUrl);
          stop = () => abusers.stop(waitForCutsMs);
        } else if (kind !== 'alone') {
          const inline = await startAbusers(baseUrl, build.abusive, ABUSE);
          stop = () => inline.stop(waitForCutsMs);
        }
        const got = await wellBehaved(baseUrl, build.good, REQUESTS, INTERVAL_MS);
        const phase = phaseName(build, kind);
        const used = cpu[phase];
        used.wall += performance.now() / 1000 - before.wall;
        used.server += cpuSeconds(build.server.proc.child.pid) - before.server;
        used.abusers += cpuSeconds(abusers.pid) - before.abusers;
        used.clients += cpuSeconds(process.pid) - before.clients;
        if (stop) addCounts(outcomes[build.name], await stop());
        clearInterval(sampler);
        const grew = kept[phase];
        grew.rss = Math.max(grew.rss, rssPeak - memBefore.rss);
        grew.rssPeak = Math.max(grew.rssPeak, rssPeak);
        grew.db = Math.max(grew.db, dbMb(build.server.db) - memBefore.db);
        if (kind === 'beside the abusers') tenantLog.push(await usage(baseUrl, build.parent.accountId));
        used.requests += got.length;
        samples[phase].push(...got);
        rounds[phase].push(summary(got));
        const last = rounds[phase].at(-1);
        log(`round ${r + 1} ${phase}: p50 ${last.p50.toFixed(0)} ms, p99 ${last.p99.toFixed(0)} ms`);
      }
    }
  }
} finally {
  abusers?.exit();
  for (const build of builds) {
    await build.server?.proc.stop();
    if (build.server) rmSync(build.server.dir, { recursive: true, force: true });
  }
}

const f = (ms) => ms.toFixed(0);
const pooled = Object.fromEntries(phases.map((p) => [p, summary(samples[p])]));
const fiveXx = (statuses) =>
  Object.entries(statuses)
    .filter(([s]) => Number(s) >= 500)
    .reduce((n, [, c]) => n + c, 0);
const anyFiveXx =
  Object.values(pooled).reduce((n, s) => n + fiveXx(s.statuses), 0) +
  Object.values(outcomes).reduce((n, byAbuse) => n + Object.values(byAbuse).reduce((m, o) => m + fiveXx(o), 0), 0);
const range = (xs) => (xs.length > 1 ? `${f(Math.min(...xs))}-${f(Math.max(...xs))}` : f(xs[0]));
const aloneOf = (phase) => (builds.length > 1 ? `${phase.split(': ')[0]}: alone` : 'alone');
const ratios = (phase) => rounds[phase].map((s, i) => (s.p99 / rounds[aloneOf(phase)][i].p99).toFixed(2)).join(', ');
const lines = [
  '# Noisy-neighbour figures (`npm run bench:hosted`)',
  '',
  `Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')} at the end, Node ${process.version}. Server: hosted mode in its own process, headers timeout`,
  `${HEADERS_TIMEOUT_MS} ms, request timeout ${REQUEST_TIMEOUT_MS} ms, other limits at their hosted defaults. Abusers in a`,
  `process of their own${CPU_PROF ? '; server under --cpu-prof' : ''}.${BASELINE ? ` Baseline: the build in ${BASELINE}.` : ''}`,
  '',
  `${TENANTS} well-behaved tenants, each ${REQUESTS} reads (wallet/assetList, card/list) one every ${INTERVAL_MS} ms per phase;`,
  `${ROUNDS} rounds, phases alternating. Pooled over the rounds, with the per-round range:`,
  '',
  '| phase | requests | p50 ms | p99 ms | max ms | p50 per round | p99 per round | statuses |',
  '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ...phases.map((p) => {
    const s = pooled[p];
    const per = rounds[p];
    return `| ${p} | ${s.requests} | ${f(s.p50)} | ${f(s.p99)} | ${f(s.max)} | ${range(per.map((x) => x.p50))} | ${range(per.map((x) => x.p99))} | ${JSON.stringify(s.statuses)} |`;
  }),
  '',
  ...phases
    .filter((p) => !p.endsWith('alone'))
    .map(
      (p) =>
        `p99 ${p} / p99 ${aloneOf(p)}: **${(pooled[p].p99 / pooled[aloneOf(p)].p99).toFixed(2)}x** pooled, per round ${ratios(p)} (target at most 2x).`,
    ),
  '',
  'CPU seconds used per phase, over all rounds (the machine has 2 cores, shared with other work):',
  '',
  '| phase | wall s | server | abusers | clients | server CPU ms per 100 well-behaved requests |',
  '| --- | --- | --- | --- | --- | --- |',
  ...phases.map((p) => {
    const u = cpu[p];
    const per100 = ((u.server * 1000) / Math.max(1, u.requests)) * 100;
    return `| ${p} | ${u.wall.toFixed(0)} | ${u.server.toFixed(1)} | ${u.abusers.toFixed(1)} | ${u.clients.toFixed(1)} | ${per100.toFixed(0)} |`;
  }),
  '',
  'What the server kept: the largest growth over one phase of its resident memory (and its peak) and of its',
  "database file with its WAL, and the abusive tenant's request-log bytes after each noisy phase:",
  '',
  '| phase | RSS growth MB | RSS peak MB | database growth MB |',
  '| --- | --- | --- | --- |',
  ...phases.map(
    (p) => `| ${p} | ${kept[p].rss.toFixed(0)} | ${kept[p].rssPeak.toFixed(0)} | ${kept[p].db.toFixed(1)} |`,
  ),
  '',
  `Abusive tenant (12 children): request log ${tenantLog
    .map((u) => `${(u.requestLogBytes / 1024 / 1024).toFixed(1)} MB`)
    .join(', ')} of its ${((tenantLog[0]?.requestLogBytesLimit ?? 0) / 1024 / 1024).toFixed(0)} MiB bound; ${
    tenantLog.at(-1)?.childSandboxes ?? 0
  } children.`,
  `Well-behaved requests without an answer (connection reset or closed): **${Object.values(pooled).reduce(
    (n, s) => n + (s.statuses[0] ?? 0),
    0,
  )}**.`,
  '',
  `Answers 5xx: **${anyFiveXx}**.`,
  '',
  'What the abusers got over all rounds (status: count; 0 = connection closed without an answer):',
  '',
  '| abuse | outcome |',
  '| --- | --- |',
  ...Object.entries(outcomes).flatMap(([build, byAbuse]) =>
    Object.entries(byAbuse).map(([k, v]) => `| ${builds.length > 1 ? `${build}: ` : ''}${k} | ${JSON.stringify(v)} |`),
  ),
  '',
];
writeFileSync('bench/hosted-results.md', lines.join('\n'));
console.log(lines.join('\n'));
process.exit(anyFiveXx === 0 ? 0 : 1);
