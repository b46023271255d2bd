// The floor of a request on our stack: the bare route (bare-server.mjs) plus only what any faithful sandbox must do.
// POST /floor is a `wallet/assetList`: it reads the x-api-key header and the JSON body, makes two indexed SQLite reads
// (the wallet's balance and its pending deposits, autocommit, from a WAL database as the sandbox's), and answers the
// same envelope with a request id. POST /floor/deposit is a keyed `card/deposit`: the headers, the body and its
// SHA-256, then in one transaction shared by the writes of one event-loop turn (group commit, as the sandbox), each
// in a savepoint, the idempotency key's lookup, the two ledger sides, the transfer, the event and the idempotency
// record with the answer. No authentication lookup, no
// validation, no logging, no request log, no budgets, no card checks or fees: what the sandbox costs above this is
// its own; what this costs above the bare route, any sandbox on Hono and better-sqlite3 pays. PORT and DB (a file
// path; it is created) come from the environment.
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';
import { createHash, randomBytes } from 'node:crypto';

const db = new Database(process.env.DB);
db.pragma('page_size = 2048');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec(`CREATE TABLE IF NOT EXISTS ledger_accounts (id TEXT PRIMARY KEY, balance_micros INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS chain_deposits (account_id TEXT NOT NULL, amount_micros INTEGER NOT NULL, credited_at_ms INTEGER);
  CREATE INDEX IF NOT EXISTS chain_deposits_pending ON chain_deposits(account_id) WHERE credited_at_ms IS NULL;
  CREATE TABLE IF NOT EXISTS transfers (id INTEGER PRIMARY KEY, debit TEXT, credit TEXT, amount_micros INTEGER, at_ms INTEGER);
  CREATE INDEX IF NOT EXISTS transfers_debit ON transfers(debit);
  CREATE INDEX IF NOT EXISTS transfers_credit ON transfers(credit);
  CREATE TABLE IF NOT EXISTS events (id TEXT PRIMARY KEY, account_id TEXT, type TEXT, payload TEXT, at_ms INTEGER);
  CREATE INDEX IF NOT EXISTS events_account ON events(account_id, at_ms);
  CREATE TABLE IF NOT EXISTS idempotency (account_id TEXT, key TEXT, body_hash TEXT, status INTEGER, response TEXT,
    at_ms INTEGER, PRIMARY KEY (account_id, key));
  INSERT OR REPLACE INTO ledger_accounts VALUES ('acct_floor:wallet', 1000000000);`);
const balance = db.prepare('SELECT balance_micros FROM ledger_accounts WHERE id = ?').pluck();
const pending = db
  .prepare('SELECT COALESCE(SUM(amount_micros), 0) FROM chain_deposits WHERE account_id = ? AND credited_at_ms IS NULL')
  .pluck();
const move = db.prepare(
  'INSERT INTO ledger_accounts (id, balance_micros) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET balance_micros = balance_micros + excluded.balance_micros',
);
const transfer = db.prepare('INSERT INTO transfers (debit, credit, amount_micros, at_ms) VALUES (?, ?, ?, ?)');
const event = db.prepare('INSERT INTO events VALUES (?, ?, ?, ?, ?)');
const remember = db.prepare('INSERT INTO idempotency VALUES (?, ?, ?, ?, ?, ?)');
const recall = db.prepare('SELECT body_hash, response FROM idempotency WHERE account_id = ? AND key = ?');
const usdt = (micros) => (micros / 1e6).toFixed(2);
let requests = 0;

const app = new Hono();
app.get('/healthz', (c) => c.json({ status: 'ok' }));
app.post('/floor', async (c) => {
  if (!c.req.header('x-api-key')) return c.json({ code: 1001, message: 'missing key' }, 401);
  await c.req.json();
  const available = balance.get('acct_floor:wallet');
  const frozen = pending.get('acct_floor');
  return c.json(
    {
      code: 0,
      message: 'ok',
      assetList: [
        {
          currency: 'USDT',
          availableAmount: usdt(available),
          frozenAmount: usdt(frozen),
          assetType: 'CRYPTO',
          status: 'ACTIVE',
        },
        {
          currency: 'USDC',
          availableAmount: '0',
          frozenAmount: null,
          assetType: 'CRYPTO',
          status: null,
          active: false,
        },
      ],
    },
    200,
    { 'x-request-id': `req_${(++requests).toString(36).padStart(20, '0')}` },
  );
});
/**
 * The writes handed over in one event-loop turn, run in one transaction, each in a savepoint of its own (one that
 * fails rolls back alone and is answered `undefined`), and answered after the commit.
 */
const queued = [];
const oneWrite = db.transaction((w) => w.work());
const commitTogether = db.transaction((writes) => {
  for (const w of writes) {
    try {
      w.answer = oneWrite(w);
    } catch {
      w.answer = undefined;
    }
  }
});
const write = (work) =>
  new Promise((resolve) => {
    if (queued.push({ work, resolve }) > 1) return;
    setImmediate(() => {
      const writes = queued.splice(0);
      commitTogether(writes);
      for (const w of writes) w.resolve(w.answer);
    });
  });

app.post('/floor/deposit', async (c) => {
  const key = c.req.header('idempotency-key');
  if (!c.req.header('x-api-key') || !key) return c.json({ code: 1001, message: 'missing key' }, 401);
  const text = await c.req.text();
  const body = JSON.parse(text);
  const bodyHash = createHash('sha256').update(text).digest('hex');
  const answer = await write(() => {
    const seen = recall.get('acct_floor', key);
    if (seen) return seen.body_hash === bodyHash ? seen.response : undefined;
    const now = Date.now();
    const micros = Math.round(Number(body.amount) * 1e6);
    const card = `acct_floor:card:${body.cardId}`;
    move.run('acct_floor:wallet', -micros);
    move.run(card, micros);
    transfer.run('acct_floor:wallet', card, micros, now);
    const response = JSON.stringify({ code: 0, message: 'ok', cardId: body.cardId, amount: usdt(micros) });
    event.run(`evt_${randomBytes(10).toString('hex')}`, 'acct_floor', 'card.deposit', response, now);
    remember.run('acct_floor', key, bodyHash, 200, response, now);
    return response;
  });
  if (answer === undefined) return c.json({ code: 4212, message: 'key reused or write failed' }, 422);
  return c.body(answer, 200, { 'content-type': 'application/json', 'x-request-id': `req_${key.slice(-20)}` });
});
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' });
