// A quick run of a few scenarios for before/after comparisons while optimising (the full `npm run bench` takes
// minutes): node bench/quick.mjs [read|create|deposit|bills|all] after `npm run build`. BENCH_SECONDS sets the
// length, SETUP the cards created for the deposit run (6,000), PROF=1 writes CPU profiles to /tmp/pq/prof
// (`node bench/profile-summary.mjs /tmp/pq/prof`). Prints req/s, p50, p99 and server CPU per request.
import { rmSync, mkdirSync } from 'node:fs';
import { benchAccount, client, ADMIN_TOKEN } from './lib/client.mjs';
import { measure } from './lib/load.mjs';
import { freePort, startNode } from './lib/procs.mjs';
import autocannon from 'autocannon';
import { seedTransactions } from './lib/seed-bills.mjs';
const which = process.argv[2] ?? 'all';
const TMP = '/tmp/pq';
rmSync(TMP + '/db', { recursive: true, force: true });
mkdirSync(TMP + '/db', { recursive: true });
const port = await freePort();
const prof = process.env.PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${TMP}/prof`] : [];
if (prof.length) rmSync(TMP + '/prof', { recursive: true, force: true });
const s = await startNode(
  [
    ...prof,
    'dist/src/cli/main.js',
    'serve',
    '--db',
    TMP + '/db/b.db',
    '--port',
    String(port),
    '--admin-token',
    ADMIN_TOKEN,
    '--log-level',
    'warn',
  ],
  { env: { SANDBOX_BOOTSTRAP: 'false' }, healthUrl: `http://127.0.0.1:${port}/healthz` },
);
const url = `http://127.0.0.1:${port}`;
const api = client(url);
const post = (path, key, body) => ({
  url: url + path,
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': key },
  body: JSON.stringify(body),
});
function keyed(path, apiKey, prefix, next) {
  let n = 0;
  return {
    url: url + path,
    requests: [
      {
        method: 'POST',
        setupRequest(req) {
          req.headers = {
            'content-type': 'application/json',
            'x-api-key': apiKey,
            'idempotency-key': `${prefix}-${++n}`,
          };
          req.body = JSON.stringify(next());
          return req;
        },
      },
    ],
  };
}
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
    const created = [];
    await new Promise((res, rej) =>
      autocannon(
        {
          ...keyed('/v1/card/create', w.apiKey, 'setup', () => ({ amount: 5, currency: 'USDT' })),
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
          keyed('/v1/card/create', w.apiKey, 'c', () => ({ amount: 5, currency: 'USDT' })),
          s.child.pid,
        ),
      ]);
    const ids = (await api.post(w.apiKey, '/v1/card/list', {})).cardList.map((c) => c.cardId);
    let i = 0;
    if (which !== 'create')
      out.push([
        'deposit',
        await measure(
          keyed('/v1/card/deposit', w.apiKey, 'd', () => ({
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
