// A quick run of a few scenarios for before/after comparisons while optimising (the full `npm run bench` takes
// minutes): node bench/quick.mjs [read|create|deposit|bills|all] after `npm run build`. BENCH_SECONDS sets the
// length, SETUP the cards created for the deposit run (6,000), LOG_LEVEL the server's (warn), PROF=1 writes CPU profiles to /tmp/pq/prof
// (`node bench/profile-summary.mjs /tmp/pq/prof`). Prints req/s, p50, p99 and server CPU per request.
// `node bench/quick.mjs read --compare-request-log [--rounds N]` runs two servers, one with the request log on and
// one with it off, and measures each read scenario (or only `--scenario NAME`) on both at the same time, for N rounds
// (default 4).
import { rmSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { benchAccount, client, ADMIN_TOKEN } from './lib/client.mjs';
import { measure } from './lib/load.mjs';
import { freePort, startNode } from './lib/procs.mjs';
import autocannon from 'autocannon';
import { seedTransactions } from './lib/seed-bills.mjs';
import { keyed } from './lib/keyed.mjs';
const args = process.argv.slice(2);
const which = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? 'all';
const TMP = '/tmp/pq';
rmSync(TMP + '/db', { recursive: true, force: true });
mkdirSync(TMP + '/db', { recursive: true });
const prof = process.env.PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${TMP}/prof`] : [];
if (prof.length) rmSync(TMP + '/prof', { recursive: true, force: true });

async function startServer(name, extra = []) {
  const port = await freePort();
  const s = await startNode(
    [
      ...prof,
      'dist/src/cli/main.js',
      'serve',
      '--db',
      `${TMP}/db/${name}.db`,
      '--port',
      String(port),
      '--admin-token',
      ADMIN_TOKEN,
      '--log-level',
      process.env.LOG_LEVEL ?? 'warn',
      ...extra,
    ],
    { env: { SANDBOX_BOOTSTRAP: 'false' }, healthUrl: `http://127.0.0.1:${port}/healthz` },
  );
  return { ...s, url: `http://127.0.0.1:${port}`, name };
}

/** The read scenarios against one server: an account with 20 cards, and the requests each scenario repeats. */
async function readScenarios(url) {
  const api = client(url);
  const r = await benchAccount(api);
  const cards = [];
  for (let i = 0; i < 20; i++)
    cards.push((await api.post(r.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' })).cardId);
  const post = (path, body) => ({
    url: url + path,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': r.apiKey },
    body: JSON.stringify(body),
  });
  return [
    ['assetList', post('/v1/wallet/assetList', {})],
    ['card/asset', post('/v1/card/asset', { cardId: cards[1] })],
    ['card/list', post('/v1/card/list', {})],
    ['bill/list', post('/v1/bill/list', {})],
  ];
}

if (args.includes('--compare-request-log')) {
  await compareRequestLog();
  process.exit(0);
}

/** Loads both servers at once per scenario and round; prints each figure and, per scenario, the medians and range. */
async function compareRequestLog() {
  const rounds = Number(args[args.indexOf('--rounds') + 1]) || 4;
  const servers = [
    await startServer('on', ['--request-log', 'on']),
    await startServer('off', ['--request-log', 'off']),
  ];
  const results = new Map(); // scenario -> { on: [m], off: [m] }
  const load = [os.loadavg()[0]];
  try {
    const only = args.includes('--scenario') ? args[args.indexOf('--scenario') + 1] : undefined;
    const scenarios = (await Promise.all(servers.map((s) => readScenarios(s.url)))).map((list) =>
      list.filter(([name]) => only === undefined || name === only),
    );
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < scenarios[0].length; i++) {
        const name = scenarios[0][i][0];
        // Both servers at once: on this machine the CPU a request gets varies by 20 % from one run to the next
        // (other work on the host), which two runs side by side share.
        const both = await Promise.all(servers.map((s, k) => measure(scenarios[k][i][1], s.child.pid)));
        for (const k of [0, 1]) {
          const m = both[k];
          if (!results.has(name)) results.set(name, { on: [], off: [] });
          results.get(name)[servers[k].name].push(m);
          console.log(
            `round ${round + 1} ${name.padEnd(11)} ${servers[k].name.padEnd(3)} ${Math.round(m.rps)} rps ` +
              `cpu ${Math.round(m.cpuUsPerReq)}us p99 ${m.p99} non2xx ${m.non2xx} err ${m.errors}`,
          );
        }
      }
      load.push(os.loadavg()[0]);
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const range = (xs) => `${Math.round(Math.min(...xs))}-${Math.round(Math.max(...xs))}`;
  console.log(`\n${rounds} rounds; 1-min load average ${load.map((x) => x.toFixed(1)).join(', ')}`);
  console.log('scenario     cpu/req on (median, range)   off (median, range)   on/off   rps on / off (median)');
  for (const [name, { on, off }] of results) {
    const cOn = on.map((m) => m.cpuUsPerReq);
    const cOff = off.map((m) => m.cpuUsPerReq);
    // Per round ratio too: rounds measured next to each other share the machine's load at the time.
    const ratios = cOn.map((x, j) => x / cOff[j]);
    console.log(
      `${name.padEnd(12)} ${String(Math.round(median(cOn))).padStart(5)}us (${range(cOn)})`.padEnd(42) +
        `${String(Math.round(median(cOff))).padStart(5)}us (${range(cOff)})`.padEnd(22) +
        `${((median(ratios) - 1) * 100).toFixed(0).padStart(4)} % (${ratios.map((x) => ((x - 1) * 100).toFixed(0)).join(', ')})  ` +
        `${Math.round(median(on.map((m) => m.rps)))} / ${Math.round(median(off.map((m) => m.rps)))}`,
    );
  }
}

const s = await startServer('b');
const port = new URL(s.url).port;
const url = `http://127.0.0.1:${port}`;
const api = client(url);
const post = (path, key, body) => ({
  url: url + path,
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': key },
  body: JSON.stringify(body),
});
const out = [];
try {
  const r = await benchAccount(api);
  const cards = [];
  for (let i = 0; i < 20; i++)
    cards.push((await api.post(r.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' })).cardId);
  if (which === 'bills') {
    seedTransactions(TMP + '/db/b.db', { accountId: r.accountId, cardId: cards[0], count: 1_000_000 });
    out.push(['bill/list1M', await measure(post('/v1/bill/list', r.apiKey, {}), s.child.pid)]);
  }
  if (which === 'all' || which === 'read') {
    out.push(['assetList', await measure(post('/v1/wallet/assetList', r.apiKey, {}), s.child.pid)]);
    out.push(['card/asset', await measure(post('/v1/card/asset', r.apiKey, { cardId: cards[1] }), s.child.pid)]);
    out.push(['card/list', await measure(post('/v1/card/list', r.apiKey, {}), s.child.pid)]);
    out.push(['bill/list', await measure(post('/v1/bill/list', r.apiKey, {}), s.child.pid)]);
  }
  if (which === 'all' || which === 'deposit' || which === 'create') {
    const w = await benchAccount(api);
    await new Promise((res, rej) =>
      autocannon(
        {
          ...keyed(url + '/v1/card/create', w.apiKey, 'setup', () => ({ amount: 5, currency: 'USDT' })),
          connections: 20,
          amount: Number(process.env.SETUP ?? 6000),
        },
        (e) => (e ? rej(e) : res()),
      ),
    );
    if (which !== 'deposit')
      out.push([
        'create',
        await measure(
          keyed(url + '/v1/card/create', w.apiKey, 'c', () => ({ amount: 5, currency: 'USDT' })),
          s.child.pid,
        ),
      ]);
    const ids = (await api.post(w.apiKey, '/v1/card/list', {})).cardList.map((c) => c.cardId);
    let i = 0;
    if (which !== 'create')
      out.push([
        'deposit',
        await measure(
          keyed(url + '/v1/card/deposit', w.apiKey, 'd', () => ({
            cardId: ids[i++ % ids.length],
            amount: 1,
            currency: 'USDT',
          })),
          s.child.pid,
        ),
      ]);
  }
} finally {
  await s.stop();
}
for (const [n, m] of out)
  console.log(
    n.padEnd(12),
    `${Math.round(m.rps)} rps p50 ${m.p50} p99 ${m.p99} cpu ${Math.round(m.cpuUsPerReq)}us non2xx ${m.non2xx} err ${m.errors}`,
  );
