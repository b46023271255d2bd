import { Hono } from 'hono';
import type { Deps } from '../domain/deps.js';
import type { AppEnv } from '../http/context.js';
import { apiKeyAuth } from '../http/middleware/auth.js';
import { billRoutes } from './bills.js';
import { cardRoutes } from './cards.js';
import { walletRoutes } from './wallet.js';
import { webhookRoutes } from './webhook.js';

/** The partner API under /v1: authentication first, then one sub-app per resource. */
export function partnerApi(deps: Deps) {
  const api = new Hono<AppEnv>();
  api.use('*', apiKeyAuth(deps));
  api.route('/wallet', walletRoutes(deps));
  api.route('/card', cardRoutes(deps));
  api.route('/bill', billRoutes(deps));
  api.route('/webhook', webhookRoutes(deps));
  return api;
}
