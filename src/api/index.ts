import type { Handlers } from '../http/router.js';
import type { ServerDeps } from '../http/server-deps.js';
import { billHandlers } from './bills.js';
import { cardHandlers } from './cards.js';
import { walletHandlers } from './wallet.js';
import { webhookHandlers } from './webhook.js';

/** The partner API's handlers by operation (contracts/index.json); app.ts gives them their pipeline. */
export function partnerHandlers(deps: ServerDeps): Handlers {
  return { ...walletHandlers(deps), ...cardHandlers(deps), ...billHandlers(deps), ...webhookHandlers(deps) };
}
