// A release's fixture database (docs/development.md, "Releases"): runs the compiled server of a release checkout on a
// new database, writes every kind of row through its HTTP API alone (accounts and keys, a BIN, inventory, cards in
// every state, deposits settled and pending, card transactions of every kind, 3DS challenges, chain deposits,
// faults, a webhook with delivered, failed and pending deliveries, a child sandbox, a readiness run, the request
// log), freezes every account clock, records what its API answers to the reads a partner makes, and stops it
// cleanly. test/ops/release-fixtures.test.ts opens each fixture with the current build and expects every answer again.
//
//   node scripts/release-fixture.mjs --build ../release-checkout --name 395b14c
//
// writes test/fixtures/releases/<name>.db and <name>.json. The server secret and admin token are fixed (below), so
// the test can open the database as the release served it; they protect nothing but this fixture.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const SECRET = 'release-fixture-server-secret-protects-nothing-else';
const ADMIN_TOKEN = 'release-fixture-admin-token';

const { values } = parseArgs({ options: { build: { type: 'string' }, name: { type: 'string' } } });
if (!values.build || !values.name) {
  console.error('usage: node scripts/release-fixture.mjs --build RELEASE_CHECKOUT --name NAME');
  process.exit(2);
}
const OUT = resolve('test/fixtures/releases');
const dir = mkdtempSync(join(tmpdir(), 'release-fixture-'));
const db = join(dir, 'fixture.db');

/** A receiver that fails the attempts it is told to fail. */
let failNext = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.statusCode = failNext > 0 ? (failNext--, 500) : 200;
    res.end();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hooks`;

const server = spawn(
  process.execPath,
  [join(resolve(values.build), 'dist/src/cli/main.js'), 'serve', '--db', db, '--port', '0', '--log-level', 'info'],
  {
    env: { ...process.env, SANDBOX_SECRET: SECRET, SANDBOX_ADMIN_TOKEN: ADMIN_TOKEN, SANDBOX_BOOTSTRAP: 'false' },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const base = await new Promise((resolveUrl, reject) => {
  let out = '';
  server.stdout.setEncoding('utf8').on('data', (d) => {
    out += d;
    const line = out.split('\n').find((l) => l.includes('card sandbox listening'));
    if (line) resolveUrl(JSON.parse(line).url);
  });
  server.on('exit', (code) => reject(new Error(`the release's server exited with ${code}`)));
});

// Whatever happens below, the release's server and the receiver stop and the temporary folder goes.
process.on('exit', () => {
  if (server.exitCode === null) server.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
process.on('unhandledRejection', (err) => {
  console.error(err);
  process.exit(1);
});

async function call(method, path, { key, body, headers = {} } = {}) {
  const auth = key ? { 'X-API-KEY': key } : { Authorization: `Bearer ${ADMIN_TOKEN}` };
  const res = await fetch(base + path, {
    method,
    headers: { ...auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

/** SHA-256 of `[cardNo, cvv, expiryDate]` as JSON (the test computes the same of what the current build answers). */
const cardDataHash = ({ cardNo, cvv, expiryDate }) =>
  createHash('sha256')
    .update(JSON.stringify([cardNo, cvv, expiryDate]))
    .digest('hex');

/** A call that must succeed; its answer's body. */
async function ok(method, path, opts) {
  const res = await call(method, path, opts);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const post = (key, path, body = {}, headers) => ok('POST', path, { key, body, headers });
const advance = (key, seconds) => post(key, '/sandbox/v1/clock', { advanceSeconds: seconds });

// The operator's side: a second BIN, two accounts, keys issued and revoked, a setting changed.
await ok('PUT', '/admin/v1/bins/MC-FIXTURE-522222', {
  body: {
    title: 'Fixture Mastercard',
    bin: '522222',
    cardNetwork: 'Mastercard',
    fee: { deposit: '0.01', fx: '0.02', card: '1.5', atm: '0.01' },
    limit: { spendDaily: '5000', minimalDeposit: '5' },
    enabled: true,
    inventory: 50,
  },
});
const a = await ok('POST', '/admin/v1/accounts', {
  body: { name: 'fixture-a', balance: 5000, depositFeeRate: '0.01', depositAddress: 'auto' },
});
const b = await ok('POST', '/admin/v1/accounts', { body: { name: 'fixture-b', balance: 300, depositAddress: null } });
const spare = await ok('POST', `/admin/v1/accounts/${a.accountId}/keys`, { body: {} });
const revoked = await ok('POST', `/admin/v1/accounts/${b.accountId}/keys`, { body: {} });
await ok('DELETE', `/admin/v1/accounts/${b.accountId}/keys/${revoked.keyId}`);
await ok('PATCH', `/admin/v1/accounts/${b.accountId}`, { body: { name: 'fixture-b-renamed' } });

const key = a.apiKey;
await post(key, '/sandbox/v1/clock', { mode: 'frozen' });
await post(key, '/sandbox/v1/wallet/seed', { amount: 250 });
await post(key, '/sandbox/v1/inventory', { binId: 'MC-FIXTURE-522222', available: 7 });
await ok('PUT', '/v1/webhook', { key, body: { url: receiverUrl, deliver3dsCode: true } });
await post(key, '/v1/wallet/getAddress', { currency: 'USDT', network: 'TRX' });

// Cards: keyed and not, on both BINs; one frozen, one cancelled, one with a deposit still settling.
const keyed = (n) => ({ 'Idempotency-Key': `fixture-card-${n}` });
const c1 = (await post(key, '/v1/card/create', { amount: 400, currency: 'USDT', alias: 'travel' }, keyed(1))).cardId;
const c2 = (await post(key, '/v1/card/create', { amount: 60, currency: 'USDT' }, keyed(2))).cardId;
const c3 = (await post(key, '/v1/card/create', { amount: 30, currency: 'USDT' })).cardId;
const c4 = (await post(key, '/v1/card/create', { amount: 80, currency: 'USDT', binId: 'MC-FIXTURE-522222' })).cardId;
await post(key, '/v1/card/deposit', { cardId: c1, amount: 100 }, { 'Idempotency-Key': 'fixture-deposit-1' });
await advance(key, 5);
await post(key, '/v1/card/freeze', { cardId: c2 });
await post(key, '/v1/card/cancel', { cardId: c3 });
await advance(key, 10);

// The card network: cleared in part, reversed, refunded, declined, in another currency, and one still pending.
const auth = (body) => post(key, '/sandbox/v1/card/authorize', { cardId: c1, merchantName: 'Fixture Cafe', ...body });
const t1 = (await auth({ amount: 42.5 })).transactionId;
await post(key, '/sandbox/v1/transaction/clear', { transactionId: t1, amount: 40 });
const t2 = (await auth({ amount: 12 })).transactionId;
await post(key, '/sandbox/v1/transaction/reverse', { transactionId: t2 });
const t3 = (await auth({ amount: 25, merchantCountry: 'FR', currency: 'EUR' })).transactionId;
await post(key, '/sandbox/v1/transaction/clear', { transactionId: t3 });
await post(key, '/sandbox/v1/transaction/refund', { transactionId: t3, amount: 5 });
await auth({ amount: 9, declineReason: 'DO_NOT_HONOR' });
await post(key, '/sandbox/v1/card/authorize', { cardId: c4, amount: 15, merchantName: 'Fixture Books' });
await auth({ amount: 3 });

// 3DS: one challenge verified, one left open.
const challenge = await post(key, '/sandbox/v1/card/3ds', {
  cardId: c1,
  type: 'payment',
  merchant: 'Fixture Air',
  amount: 99,
});
await post(key, '/sandbox/v1/3ds/verify', { challengeId: challenge.challengeId, otp: challenge.otp });
await post(key, '/sandbox/v1/card/3ds', { cardId: c4, type: 'binding', merchant: 'Fixture Wallet' });

// Chain: one deposit credited, one still confirming; a deposit to a card still settling.
await post(key, '/sandbox/v1/chain/transfer', { amount: 70, confirmations: 19 });
await advance(key, 1);
await post(key, '/sandbox/v1/chain/transfer', { amount: 20 });
await post(key, '/v1/card/deposit', { cardId: c4, amount: 10 });

// Webhook: events delivered, attempts failed with a retry pending, a manual redelivery.
failNext = 2;
await post(key, '/v1/card/unfreeze', { cardId: c2 });
await post(key, '/v1/card/freeze', { cardId: c2 });
await advance(key, 0);
const [latest] = (await post(key, '/sandbox/v1/events', { limit: 1 })).events;
await post(key, '/sandbox/v1/webhook/redeliver', { eventId: latest.id });
await post(key, '/sandbox/v1/faults', {
  rules: [{ path: '/v1/card/cancel', count: 2, respond: { httpStatus: 503, code: 9999 } }],
});

// A child sandbox with a card of its own; a readiness run, stopped.
const child = await post(key, '/sandbox/v1/sandboxes/create', {
  name: 'fixture-child',
  balance: 40,
  ttlSeconds: 604800,
});
await post(child.apiKey, '/sandbox/v1/clock', { mode: 'frozen' });
await post(child.apiKey, '/v1/card/create', { amount: 20, currency: 'USDT' });
const run = await post(key, '/sandbox/v1/readiness/run', { webhookUrl: receiverUrl, windowSeconds: 60 });
await post(key, '/sandbox/v1/readiness/stop', { runId: run.runId });

// Account b: a card, its clock frozen too, and a traffic run part way through (its messages run, and still to run).
await post(b.apiKey, '/sandbox/v1/clock', { mode: 'frozen' });
await post(b.apiKey, '/v1/card/create', { amount: 50, currency: 'USDT' });
await post(b.apiKey, '/sandbox/v1/traffic/start', { days: 2, perCardPerDay: 4, seed: 7 });
await advance(b.apiKey, 8 * 3600);

// What a partner reads, as the release answered it.
async function reads(apiKey, accountId) {
  const list = await post(apiKey, '/v1/card/list');
  const cards = list.cardList.map((c) => c.cardId);
  const requests = [
    ['POST', '/v1/wallet/assetList', {}],
    ['POST', '/v1/wallet/getAddress', { currency: 'USDT', network: 'TRX' }],
    ['POST', '/v1/card/binList', {}],
    ['POST', '/v1/card/list', {}],
    ...cards.flatMap((cardId) => [
      ['POST', '/v1/card/detail', { cardId }],
      ['POST', '/v1/card/asset', { cardId }],
      ['POST', '/v1/card/sensitiveInfo', { cardId }],
      ['POST', '/v1/bill/list', { cardId, pageSize: 100 }],
    ]),
    ['POST', '/v1/bill/list', { pageSize: 100 }],
    ['GET', '/v1/webhook', undefined],
    ['POST', '/sandbox/v1/events', { limit: 100 }],
    ['POST', '/sandbox/v1/webhook/deliveries', { limit: 100 }],
    ['POST', '/sandbox/v1/chain/deposits', {}],
    ['POST', '/sandbox/v1/sandboxes/list', {}],
    ['POST', '/sandbox/v1/traffic/list', {}],
    ['POST', '/sandbox/v1/readiness/list', {}],
  ];
  const answers = [];
  for (const [method, path, body] of requests) {
    const res = await call(method, path, { key: apiKey, body });
    // A card number and CVV never sit in the repository in clear, even a fixture's: they are kept as a hash.
    const kept =
      path === '/v1/card/sensitiveInfo' && res.status === 200
        ? { cardDataSha256: cardDataHash(res.body) }
        : { response: res.body };
    answers.push({ method, path, body, status: res.status, ...kept });
  }
  const admin = await call('GET', `/admin/v1/accounts/${accountId}`);
  answers.push({
    method: 'GET',
    path: `/admin/v1/accounts/${accountId}`,
    admin: true,
    status: admin.status,
    response: admin.body,
  });
  return answers;
}

const capturedAtMs = Date.now();
const accounts = [];
for (const [name, handle] of [
  ['fixture-a', a],
  ['fixture-a (second key)', { ...a, apiKey: spare.apiKey }],
  ['fixture-b', b],
  ['fixture-child', child],
]) {
  accounts.push({
    name,
    accountId: handle.accountId,
    apiKey: handle.apiKey,
    reads: await reads(handle.apiKey, handle.accountId),
  });
}
// The revoked key must stay refused.
const refused = await call('POST', '/v1/wallet/assetList', { key: revoked.apiKey, body: {} });

server.kill('SIGTERM');
await new Promise((r) => server.on('exit', r));
receiver.close();
receiver.closeAllConnections();
mkdirSync(OUT, { recursive: true });
copyFileSync(db, join(OUT, `${values.name}.db`));
writeFileSync(
  join(OUT, `${values.name}.json`),
  JSON.stringify(
    {
      $comment:
        'Written by scripts/release-fixture.mjs against the release named here; read by test/ops/release-fixtures.test.ts.',
      release: values.name,
      secret: SECRET,
      adminToken: ADMIN_TOKEN,
      capturedAtMs,
      revokedKey: { apiKey: revoked.apiKey, status: refused.status },
      accounts,
    },
    null,
    1,
  ) + '\n',
);
console.log(`wrote ${join(OUT, `${values.name}.db`)} and .json (${accounts.length} accounts' reads)`);
