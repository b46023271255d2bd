import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { adminApi } from './admin/index.js';
import { partnerApi } from './api/index.js';
import { consoleRoutes } from './console/index.js';
import { docsRoutes } from './contracts/docs-routes.js';
import type { ServerDeps } from './server-deps.js';
import type { AppEnv } from './http/context.js';
import { DomainError } from './domain/errors.js';
import { tenantOfKey } from './domain/tenants.js';
import { errorBody, errorResponse } from './http/errors.js';
import { keySignInThrottleOf, operatorThrottleOf } from './http/failure-throttle.js';
import { CLIENT_CLOSED_REQUEST, accessLog, clientAborted } from './http/middleware/access-log.js';
import { jsonBodyLimit } from './http/middleware/json-body.js';
import { requestId } from './http/middleware/request-id.js';
import { requestLog } from './http/middleware/request-log.js';
import { sandboxApi } from './simulation-api/index.js';

/** The whole HTTP surface: partner API, simulation API and operator API, with one error mapping. */
export function createApp(deps: ServerDeps) {
  const app = new Hono<AppEnv>();
  app.use('*', requestId({ ids: deps.ids, redactor: deps.redactor }));
  app.use('*', accessLog({ logger: deps.logger, redactor: deps.redactor }));
  app.use('*', jsonBodyLimit({ keyedPrefixes: ['/v1/', '/sandbox/v1/'] }));
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  if (deps.config.requestLog) {
    app.use('/v1/*', requestLog(deps));
    app.use('/sandbox/v1/*', requestLog(deps));
  }
  app.route('/v1', partnerApi(deps));
  app.route('/sandbox/v1', sandboxApi(deps));
  app.route('/admin/v1', adminApi(deps));
  app.route('/', docsRoutes());
  if (deps.config.console) {
    // The console acts only through this same app's public API, in-process (it can never do what the API cannot).
    const fetch = (path: string, init: RequestInit) => app.request(path, init);
    app.route(
      '/console',
      consoleRoutes({
        config: deps.config,
        wallClock: deps.wallClock,
        fetch,
        operatorThrottle: operatorThrottleOf(deps),
        keySignInThrottle: keySignInThrottleOf(deps),
        // Which tenant a session belongs to (its bound), and whether its key still works: a read, not an action.
        tenantOfKey: (apiKey) => tenantOfKey(deps, apiKey),
      }),
    );
    app.get('/', (c) => c.redirect('/console'));
  }
  app.notFound((c) => errorResponse(c, new DomainError('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`)));
  app.onError((err, c) => {
    if (err instanceof DomainError) return errorResponse(c, err);
    if (err instanceof HTTPException && err.status < 500) {
      return c.json(errorBody(400, err.message || 'Bad request'), err.status);
    }
    if (clientAborted(err, c)) return c.body(null, CLIENT_CLOSED_REQUEST);
    // The message of an unexpected error may hold anything; only its stack goes to the log, with the request id.
    deps.logger.error({ err, requestId: c.get('requestId') }, 'unexpected error');
    return errorResponse(c, new DomainError('SYSTEM_ERROR'));
  });
  return app;
}
