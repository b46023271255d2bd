import { Hono } from 'hono';
import type { ServerDeps } from '../server-deps.js';
import type { AppEnv } from '../http/context.js';
import { adminAuth } from '../http/middleware/auth.js';
import { accountRoutes } from './accounts.js';
import { binRoutes } from './bins.js';

/** The operator API under /admin/v1, behind the admin bearer token. */
export function adminApi(deps: ServerDeps) {
  const api = new Hono<AppEnv>();
  api.use('*', adminAuth(deps));
  api.route('/', accountRoutes(deps));
  api.route('/', binRoutes(deps));
  return api;
}
