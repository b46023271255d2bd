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
// BENCH_HOSTED_CPU_PROF=DIR runs the server under `node --cpu-prof` and writes its profile to DIR;
// BENCH_HOSTED_BASELINE=DIR also runs the server built in DIR (another checkout, after `npm run build` there), its
// phases interleaved with this build's in every round, so a change is measured side by side with what it changes.
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
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
};
const TENANTS = 20;
const log = (...a) => console.error('[bench:hosted]', ...a);

/** The compiled server of the checkout in `cwd`, in hosted mode, in its own process. */
async function startServer(cwd) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const proc = await startNode(
    [
      ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []),
      'dist/src/cli/main.js',
      'serve',
      ...['--mode', 'hosted', '--admin-token', ADMIN_TOKEN, '--host', '127.0.0.1', '--port', String(port)],
      ...['--db', ':memory:', '--log-level', 'warn'],
      ...['--headers-timeout', String(HEADERS_TIMEOUT_MS), '--request-timeout', String(REQUEST_TIMEOUT_MS)],
    ],
    { healthUrl: `${baseUrl}/healthz`, cwd },
  );
  return { baseUrl, proc };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ, 100 on Linux)
  } catch {
    return NaN;
  }
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

const kinds = ['alone', 'beside the abusers', ...(INLINE ? ['beside the abusers, same process as the clients'] : [])];
const builds = [{ name: 'this build', cwd: process.cwd() }, ...(BASELINE ? [{ name: 'baseline', cwd: BASELINE }] : [])];
const phaseName = (build, kind) => (builds.length > 1 ? `${build.name}: ${kind}` : kind);
const phases = builds.flatMap((b) => kinds.map((k) => phaseName(b, k)));
const samples = Object.fromEntries(phases.map((p) => [p, []]));
const rounds = Object.fromEntries(phases.map((p) => [p, []]));
/** Per phase: wall seconds and CPU seconds of the server, the abusers' process and this one (the clients). */
const cpu = Object.fromEntries(phases.map((p) => [p, { wall: 0, server: 0, abusers: 0, clients: 0 }]));
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
    build.abusive = keys.slice(TENANTS);
    await wellBehaved(build.server.baseUrl, build.good, 3, INTERVAL_MS); // warm-up: connections, caches, JIT
  }
  log(`${ROUNDS} rounds of: ${phases.join(' / ')}; ${TENANTS} tenants x ${REQUESTS} requests every ${INTERVAL_MS} ms`);
  for (let r = 0; r < ROUNDS; r++) {
    for (const build of builds) {
      const { baseUrl } = build.server;
      for (const kind of kinds) {
        let stop;
        const before = {
          wall: performance.now() / 1000,
          server: cpuSeconds(build.server.proc.child.pid),
          abusers: cpuSeconds(abusers.pid),
          clients: cpuSeconds(process.pid),
        };
        if (kind === 'beside the abusers') {
          await abusers.start(baseUrl, build.abusive);
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
        samples[phase].push(...got);
        rounds[phase].push(summary(got));
        const last = rounds[phase].at(-1);
        log(`round ${r + 1} ${phase}: p50 ${last.p50.toFixed(0)} ms, p99 ${last.p99.toFixed(0)} ms`);
      }
    }
  }
} finally {
  abusers?.exit();
  for (const build of builds) await build.server?.proc.stop();
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
  '| phase | wall s | server | abusers | clients |',
  '| --- | --- | --- | --- | --- |',
  ...phases.map((p) => {
    const u = cpu[p];
    return `| ${p} | ${u.wall.toFixed(0)} | ${u.server.toFixed(1)} | ${u.abusers.toFixed(1)} | ${u.clients.toFixed(1)} |`;
  }),
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
