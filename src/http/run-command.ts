import type { Context } from 'hono';
import type { ServerDeps } from './server-deps.js';
import { caughtUpNow } from './account-clock.js';
import type { AppEnv, Command } from './context.js';

/**
 * Runs the calling account's command in the transaction runner (store/transaction-runner.ts), at the account's
 * caught-up "now". Domain commands never open a transaction themselves.
 */
export async function runCommand<T>(c: Context<AppEnv>, deps: ServerDeps, command: Command<T>): Promise<T> {
  const nowMs = await caughtUpNow(c, deps);
  return deps.transactions.run(async (deps) => command(deps, nowMs), { account: c.get('account').id });
}
