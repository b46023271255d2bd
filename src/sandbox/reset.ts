import { Hono } from 'hono';
import { seedBalance } from '../domain/accounts.js';
import { accountNowMs } from '../domain/clock.js';
import type { ServerDeps } from '../server-deps.js';
import { sql } from '../store/db.js';
import { OK } from '../api/views.js';
import type { AppEnv } from '../http/context.js';
import { readJsonObject } from '../http/middleware/json-body.js';
import { requiredAmount } from '../http/validate.js';

/** Wipes the account's world (cards, money, transactions, events, timers, keys) but keeps API keys and clock. */
export function resetAccount(deps: ServerDeps, accountId: string): void {
  const { db } = deps;
  // Modules first: their rows may refer to cards and transactions.
  for (const reset of deps.resets) reset(db, accountId);
  for (const table of ['transactions', 'topups', 'events', 'jobs', 'idempotency_keys', 'account_bin_inventory']) {
    sql(db, `DELETE FROM ${table} WHERE account_id = ?`).run(accountId);
  }
  sql(db, 'DELETE FROM transfers WHERE account_id = ?').run(accountId);
  sql(db, 'DELETE FROM ledger_accounts WHERE account_id = ?').run(accountId);
  sql(
    db,
    `DELETE FROM seq_counters WHERE scope IN (?, ?) OR scope LIKE ? OR
       scope IN (SELECT 'txn-card:' || id FROM cards WHERE account_id = ?)`,
  ).run(`txn:${accountId}`, `cards:${accountId}`, `txn-bin:${accountId}:%`, accountId);
  sql(db, 'DELETE FROM cards WHERE account_id = ?').run(accountId);
}

export function resetRoutes(deps: ServerDeps) {
  return new Hono<AppEnv>().post('/reset', async (c) => {
    const body = await readJsonObject(c);
    const balanceMicros = body.balance === undefined ? 0 : requiredAmount(body, 'balance');
    const accountId = c.get('account').id;
    deps.db.transaction(() => {
      resetAccount(deps, accountId);
      if (balanceMicros > 0) seedBalance(deps, accountId, balanceMicros, accountNowMs(deps, accountId));
    })();
    return c.json({ ...OK });
  });
}
