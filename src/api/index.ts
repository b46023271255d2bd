import { Hono } from 'hono';
import type { ServerDeps } from '../server-deps.js';
import type { AppEnv } from '../http/context.js';
import { apiKeyAuth } from '../http/middleware/auth.js';
import { faults } from '../http/middleware/faults.js';
import { declaredLengthLimit } from '../http/middleware/json-body.js';
import { rateLimit } from '../http/middleware/rate-limit.js';
import { readinessFaults } from '../http/middleware/readiness-faults.js';
import { tenantBudget } from '../http/middleware/tenant-budget.js';
import { billRoutes } from './bills.js';
import { KEYED_CARD_PATHS, cardRoutes } from './cards.js';
import { walletRoutes } from './wallet.js';
import { webhookRoutes } from './webhook.js';

/**
 * The partner API under /v1: authentication, the tenant's budgets and rate limit, injected faults (the account's own,
 * then a readiness run's), then one sub-app per resource.
 */
export function partnerApi(deps: ServerDeps) {
  const api = new Hono<AppEnv>();
  api.use('*', apiKeyAuth(deps));
  api.use('*', tenantBudget(deps));
  api.use('*', rateLimit(deps));
  api.use('*', declaredLengthLimit());
  api.use('*', faults(deps, { keyedPaths: KEYED_CARD_PATHS }));
  api.use('*', readinessFaults(deps));
  api.route('/wallet', walletRoutes(deps));
  api.route('/card', cardRoutes(deps));
  api.route('/bill', billRoutes(deps));
  api.route('/webhook', webhookRoutes(deps));
  return api;
}
