// npm run bench:hosted: the noisy-neighbour load test. Starts the compiled server in hosted mode on loopback, makes
// 22 accounts through /admin/v1, measures 20 well-behaved tenants alone and then beside 2 abusive tenants (deep
// JSON, huge bodies, fault-rule floods, slow bodies, 1,000 idle connections), and writes bench/hosted-results.md.
// BENCH_HOSTED_REQUESTS (per tenant and phase, default 150) and BENCH_HOSTED_INTERVAL_MS (default 100) tune it.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { noisyNeighbour } from './lib/noisy.mjs';
import { freePort, startNode } from './lib/procs.mjs';

const ADMIN_TOKEN = 'bench-hosted-admin-token';
const REQUESTS = Number(process.env.BENCH_HOSTED_REQUESTS ?? 150);
const INTERVAL_MS = Number(process.env.BENCH_HOSTED_INTERVAL_MS ?? 100);
// Short enough that the server cuts slow bodies and idle connections within the run; the hosted defaults (10 s,
// 30 s) cut the same clients, later.
const HEADERS_TIMEOUT_MS = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;
const log = (...a) => console.error('[bench:hosted]', ...a);

const port = await freePort();
const server = await startNode(
  [
    'dist/src/cli/main.js',
    'serve',
    ...['--mode', 'hosted', '--admin-token', ADMIN_TOKEN, '--host', '127.0.0.1', '--port', String(port)],
    ...['--db', ':memory:', '--log-level', 'warn'],
    ...['--headers-timeout', String(HEADERS_TIMEOUT_MS), '--request-timeout', String(REQUEST_TIMEOUT_MS)],
  ],
  { healthUrl: `http://127.0.0.1:${port}/healthz` },
);
let result;
try {
  log(`20 tenants x ${REQUESTS} requests every ${INTERVAL_MS} ms, alone then beside the abusers`);
  result = await noisyNeighbour({
    baseUrl: `http://127.0.0.1:${port}`,
    adminToken: ADMIN_TOKEN,
    requestsPerTenant: REQUESTS,
    intervalMs: INTERVAL_MS,
    waitForCutsMs: REQUEST_TIMEOUT_MS + 5_000,
  });
} finally {
  await server.stop();
}

const { quiet, noisy, outcomes } = result;
const f = (ms) => ms.toFixed(1);
const ratio = noisy.p99 / quiet.p99;
const fiveXx = (statuses) =>
  Object.entries(statuses)
    .filter(([s]) => Number(s) >= 500)
    .reduce((n, [, c]) => n + c, 0);
const anyFiveXx =
  fiveXx(quiet.statuses) + fiveXx(noisy.statuses) + Object.values(outcomes).reduce((n, o) => n + fiveXx(o), 0);
const lines = [
  '# Noisy-neighbour figures (`npm run bench:hosted`)',
  '',
  `Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ')} at the end, Node ${process.version}. Server: hosted mode, headers timeout ${HEADERS_TIMEOUT_MS} ms,`,
  `request timeout ${REQUEST_TIMEOUT_MS} ms, other limits at their hosted defaults.`,
  '',
  `20 well-behaved tenants, each ${REQUESTS} reads (wallet/assetList, card/list) one every ${INTERVAL_MS} ms:`,
  '',
  '| phase | requests | p50 ms | p99 ms | max ms | statuses |',
  '| --- | --- | --- | --- | --- | --- |',
  `| alone | ${quiet.requests} | ${f(quiet.p50)} | ${f(quiet.p99)} | ${f(quiet.max)} | ${JSON.stringify(quiet.statuses)} |`,
  `| beside the abusers | ${noisy.requests} | ${f(noisy.p50)} | ${f(noisy.p99)} | ${f(noisy.max)} | ${JSON.stringify(noisy.statuses)} |`,
  '',
  `p99 beside the abusers / p99 alone: **${ratio.toFixed(2)}x** (target at most 2x). Answers 5xx: **${anyFiveXx}**.`,
  '',
  'What the abusers got (status: count; 0 = connection closed without an answer):',
  '',
  '| abuse | outcome |',
  '| --- | --- |',
  ...Object.entries(outcomes).map(([k, v]) => `| ${k} | ${JSON.stringify(v)} |`),
  '',
];
writeFileSync('bench/hosted-results.md', lines.join('\n'));
console.log(lines.join('\n'));
process.exit(anyFiveXx === 0 ? 0 : 1);
