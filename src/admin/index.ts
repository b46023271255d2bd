import type { Handlers } from '../http/router.js';
import type { ServerDeps } from '../http/server-deps.js';
import { accountHandlers } from './accounts.js';
import { binHandlers } from './bins.js';

/** The operator API's handlers by operation (contracts/index.json); app.ts puts them behind the admin token. */
export function adminHandlers(deps: ServerDeps): Handlers {
  return { ...accountHandlers(deps), ...binHandlers(deps) };
}
