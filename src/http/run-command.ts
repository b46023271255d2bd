import type { Context } from 'hono';
import type { ServerDeps } from './server-deps.js';
import { caughtUpNow } from './account-clock.js';
import type { AppEnv, Command } from './context.js';

/**
 * Runs the calling account's command in the transaction runner (store/transaction-runner.ts), at the account's
 * caught-up "now". Domain commands never open a transaction themselves.
 */
export function runCommand<T>(c: Context<AppEnv>, deps: ServerDeps, command: Command<T>): T {
  const nowMs = caughtUpNow(c, deps);
  return deps.transactions.run(() => command(nowMs));
}
