import { Hono } from 'hono';
import type { ServerDeps } from '../server-deps.js';
import type { AppEnv } from '../http/context.js';
import { apiKeyAuth } from '../http/middleware/auth.js';
import { chainRoutes } from './chain.js';
import { faults } from '../http/middleware/faults.js';
import { declaredLengthLimit } from '../http/middleware/json-body.js';
import { rateLimit } from '../http/middleware/rate-limit.js';
import { tenantBudget } from '../http/middleware/tenant-budget.js';
import { clockRoutes } from './clock.js';
import { eventsRoutes } from './events.js';
import { faultRoutes } from './faults.js';
import { inventoryRoutes } from './inventory.js';
import { readinessRoutes } from './readiness.js';
import { requestsRoutes } from './requests.js';
import { resetRoutes } from './reset.js';
import { sandboxesRoutes } from './child-sandboxes.js';
import { threeDsRoutes } from './threeds.js';
import { trafficRoutes } from './traffic.js';
import { transactionRoutes } from './transactions.js';
import { walletSeedRoutes } from './wallet-seed.js';
import { webhookSandboxRoutes } from './webhook.js';

/** Each simulation helper is a module of routes; adding a helper is adding it here. */
const modules: ((deps: ServerDeps) => Hono<AppEnv>)[] = [
  walletSeedRoutes,
  clockRoutes,
  inventoryRoutes,
  resetRoutes,
  eventsRoutes,
  webhookSandboxRoutes,
  transactionRoutes,
  trafficRoutes,
  chainRoutes,
  threeDsRoutes,
  faultRoutes,
  sandboxesRoutes,
  requestsRoutes,
  readinessRoutes,
];

/** The simulation API under /sandbox/v1: the account's X-API-KEY, acting only on that account. */
export function sandboxApi(deps: ServerDeps) {
  const api = new Hono<AppEnv>();
  api.use('*', apiKeyAuth(deps));
  api.use('*', tenantBudget(deps));
  api.use('*', rateLimit(deps));
  api.use('*', declaredLengthLimit());
  api.use('*', faults(deps));
  for (const routes of modules) api.route('/', routes(deps));
  return api;
}
