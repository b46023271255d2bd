// Server-side render time of each console page for an account with 100 cards and 10,000 transactions, made
// through the simulation API in-process (npm run bench:console, after the build). Prints the median and p95 of
// BENCH_RENDERS renders per page (default 200), after a warm-up, and the first (cold) render of each page.
import { createApp } from '../dist/src/app.js';
import { DEFAULT_CONFIG } from '../dist/src/config.js';
import { createDeps } from '../dist/src/runtime.js';

const CARDS = 100;
const TRANSACTIONS = 10_000;
const RENDERS = Number(process.env.BENCH_RENDERS ?? 200);
const ADMIN = 'bench-admin-token';

const config = Object.freeze({
  ...DEFAULT_CONFIG,
  dbPath: ':memory:',
  adminToken: ADMIN,
  bootstrapAccount: false,
  backgroundJobs: false,
  logLevel: 'silent',
});
const app = createApp(createDeps({ config }));
const json = (headers, body) => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
async function call(key, path, body) {
  const res = await app.request(path, json({ 'X-API-KEY': key }, body));
  const answer = await res.json();
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

const setupStarted = performance.now();
const account = await (
  await app.request(
    '/admin/v1/accounts',
    json({ Authorization: `Bearer ${ADMIN}` }, { balance: 1_000_000, depositAddress: null }),
  )
).json();
const key = account.apiKey;
const cards = [];
for (let i = 0; i < CARDS; i++) {
  cards.push((await call(key, '/v1/card/create', { amount: 1000, currency: 'USDT', alias: `Team ${i + 1}` })).cardId);
}
for (let i = 0; i < TRANSACTIONS; i++) {
  const { transactionId } = await call(key, '/sandbox/v1/card/authorize', {
    cardId: cards[i % CARDS],
    amount: 1 + (i % 7),
    merchantName: `Merchant ${i % 50}`,
  });
  if (i % 2 === 0) await call(key, '/sandbox/v1/transaction/clear', { transactionId });
}
console.log(
  `setup: ${CARDS} cards, ${TRANSACTIONS} transactions in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
);

const signIn = await app.request('/console/signin', {
  method: 'POST',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ apiKey: key }).toString(),
});
const cookie = signIn.headers.get('set-cookie').split(';')[0];

const pages = [
  ['Home', '/console'],
  ['Cards', '/console/cards'],
  ['Card', `/console/cards/${cards[0]}`],
  ['Transactions', '/console/transactions'],
  ['Transactions (card, page 5)', `/console/transactions?card=${cards[1]}&page=5`],
  ['Simulate', '/console/simulate'],
  ['Webhooks', '/console/webhooks'],
  ['Events', '/console/events'],
];

async function render(path) {
  const t0 = performance.now();
  const res = await app.request(path, { headers: { Cookie: cookie } });
  const html = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${html.slice(0, 200)}`);
  return { ms, bytes: Buffer.byteLength(html) };
}

const rows = [];
for (const [name, path] of pages) {
  const cold = await render(path);
  for (let i = 0; i < 20; i++) await render(path);
  const times = [];
  // CPU time as well as wall time: on a shared, loaded machine the wall time mostly measures the wait for a core.
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < RENDERS; i++) times.push((await render(path)).ms);
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  rows.push({
    page: name,
    'cold ms': +cold.ms.toFixed(2),
    'p50 ms': +at(0.5).toFixed(2),
    'p95 ms': +at(0.95).toFixed(2),
    'CPU ms': +((cpu.user + cpu.system) / 1000 / RENDERS).toFixed(2),
    'HTML KiB': +(cold.bytes / 1024).toFixed(1),
  });
}
console.table(rows);
const worst = Math.max(...rows.map((r) => r['p50 ms']));
const worstCpu = Math.max(...rows.map((r) => r['CPU ms']));
console.log(
  `slowest page: p50 ${worst.toFixed(2)} ms wall, ${worstCpu.toFixed(2)} ms CPU per render (budget 20 ms); ` +
    `load average ${(await import('node:os')).loadavg()[0].toFixed(1)} on ${(await import('node:os')).cpus().length} cores`,
);
