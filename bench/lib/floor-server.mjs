// The floor of a read on our stack: the bare route (bare-server.mjs) plus only what any faithful
// `wallet/assetList` must do. It reads the x-api-key header and the JSON body, makes two indexed SQLite reads (the
// wallet's balance and its pending deposits, autocommit, from a WAL database as the sandbox's), and answers the same
// envelope with a request id. No authentication lookup, no validation, no logging, no request log, no budgets: what
// the sandbox costs above this is its own; what this costs above the bare route, any sandbox on Hono and
// better-sqlite3 pays. PORT and DB (a file path; it is created) come from the environment.
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';

const db = new Database(process.env.DB);
db.pragma('journal_mode = WAL');
db.exec(`CREATE TABLE IF NOT EXISTS ledger_accounts (id TEXT PRIMARY KEY, balance_micros INTEGER NOT NULL);
  CREATE TABLE IF NOT EXISTS chain_deposits (account_id TEXT NOT NULL, amount_micros INTEGER NOT NULL, credited_at_ms INTEGER);
  CREATE INDEX IF NOT EXISTS chain_deposits_pending ON chain_deposits(account_id) WHERE credited_at_ms IS NULL;
  INSERT OR REPLACE INTO ledger_accounts VALUES ('acct_floor:wallet', 1000000000);`);
const balance = db.prepare('SELECT balance_micros FROM ledger_accounts WHERE id = ?').pluck();
const pending = db
  .prepare('SELECT COALESCE(SUM(amount_micros), 0) FROM chain_deposits WHERE account_id = ? AND credited_at_ms IS NULL')
  .pluck();
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
serve({ fetch: app.fetch, port: Number(process.env.PORT), hostname: '127.0.0.1' });
