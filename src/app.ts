import { Hono, type Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { adminHandlers } from './admin/index.js';
import { partnerHandlers } from './api/index.js';
import { docsRoutes } from './contracts/docs-routes.js';
import type { ServerDeps } from './http/server-deps.js';
import { CONSOLE_CALL, type AppEnv } from './http/context.js';
import { DomainError } from './domain/kernel/errors.js';
import { tenantOfKey } from './domain/accounts/tenants.js';
import { errorBody, errorResponse } from './http/errors.js';
import { CLIENT_CLOSED_REQUEST, accessLog, clientAborted } from './http/middleware/access-log.js';
import { adminAuth, apiKeyAuth, metricsAuth } from './http/middleware/auth.js';
import { MetricsExposition, RequestMetrics } from './http/metrics.js';
import { catchUp } from './http/middleware/catch-up.js';
import { connectionBound } from './http/middleware/connection-bound.js';
import { faults } from './http/middleware/faults.js';
import { declaredLengthLimit, jsonBodyLimit } from './http/middleware/json-body.js';
import { rateLimit } from './http/middleware/rate-limit.js';
import { readinessFaults } from './http/middleware/readiness-faults.js';
import { requestId } from './http/middleware/request-id.js';
import { requestLog } from './http/middleware/request-log.js';
import { tenantBudget } from './http/middleware/tenant-budget.js';
import { body, idempotency, keyedRunner, mountContract, type PipelineNames, type Route } from './http/router.js';
import { notFoundHint } from './http/nearest-operation.js';
import { sandboxHandlers } from './simulation-api/index.js';

/**
 * The whole HTTP surface: partner API, simulation API and operator API, built from contracts/index.json (router.ts),
 * each group's pipeline in order below, with one error mapping.
 */
export function createApp(deps: ServerDeps) {
  // RegExpRouter, named rather than left to Hono's choice: it matches every route with one expression and no
  // allocation per request, and a route it cannot take stops the start. Left to choose, Hono had fallen back to its
  // trie router over one docs route, without a word, at some 3 % of a read's CPU.
  const app = new Hono<AppEnv>({ router: new RegExpRouter() });
  // Each operation's steps by name, in order (test/architecture/pipelines.test.ts keeps the list checked in).
  const pipelines: PipelineNames = new Map();
  // Every request is timed and counted under its operation (metrics.ts); each route's first step names it.
  const requests = new RequestMetrics();
  app.use('*', requests.middleware());
  // Every request: its id, its access-log line, and a bound on its body before anything reads it (an API whose
  // budgets come first checks the declared length after them, so an oversized sender spends its own budget).
  app.use('*', requestId({ ids: deps.ids, redactor: deps.redactor }));
  app.use('*', accessLog({ logger: deps.logger, redactor: deps.redactor }));
  // Hosted mode: a request on a connection held over a connection bound comes in, or is answered 429 (never dropped).
  if (deps.connectionGuard) app.use('*', connectionBound(deps.connectionGuard));
  app.use('*', jsonBodyLimit({ budgetedPrefixes: ['/v1/', '/sandbox/v1/'] }));

  // The tenant APIs, one step per line. A `false` step is left out: a switch of the operation's contract entry
  // (recorded, faultable, readiness), or a setting (the request log off).
  const log = deps.config.requestLog && requestLog(deps);
  const auth = apiKeyAuth(deps);
  const budget = tenantBudget(deps);
  // What lets held requests go (and the operator API) is outside the in-flight budget: a tenant can always release.
  const budgetOutsideInFlight = tenantBudget(deps, { inFlight: false });
  const rate = rateLimit(deps);
  const length = declaredLengthLimit();
  const timers = catchUp(deps);
  const tenantSteps = (route: Route) => [
    requests.label(route),
    route.operation.recorded !== false && log,
    auth,
    route.operation.inFlightExempt ? budgetOutsideInFlight : budget,
    rate,
    route.operation.maxBodyBytes === undefined ? length : declaredLengthLimit(route.operation.maxBodyBytes),
    route.operation.faultable !== false && faults(deps, { idempotent: route.operation.idempotent }),
    (route.operation.readiness === 'keyed-write' || route.operation.readiness === 'read') &&
      readinessFaults(deps, route.operation.readiness),
  ];
  mountContract(
    app,
    deps,
    '/v1',
    partnerHandlers(deps),
    (route, handler) => [
      ...tenantSteps(route),
      // Before the body: a key is echoed on the body's 400s too (spec "Idempotency", rule 3).
      idempotency(route),
      body(route, deps.fairShare),
      // Once the request is whole (so the wait never counts against receiving it): the account's due timers.
      timers,
      // Runs the command the handler prepares, under the request's Idempotency-Key (spec "Idempotency").
      keyedRunner(deps, route),
      handler,
    ],
    [log, auth, budget, rate, length],
    pipelines,
  );
  mountContract(
    app,
    deps,
    '/sandbox/v1',
    sandboxHandlers(deps),
    (route, handler) => [...tenantSteps(route), body(route, deps.fairShare), timers, keyedRunner(deps, route), handler],
    [log, auth, budget, rate, length],
    pipelines,
  );
  // The operator API: its bearer token, then the body.
  const admin = adminAuth(deps);
  mountContract(
    app,
    deps,
    '/admin/v1',
    adminHandlers(deps),
    (route, handler) => [requests.label(route), admin, body(route), handler],
    [admin],
    pipelines,
  );
  mountContract(
    app,
    deps,
    '/healthz',
    { 'GET /healthz': (c) => c.json({ status: 'ok', store: deps.store.dialect, instance: deps.instance }) },
    (route, handler) => [requests.label(route), handler],
    undefined,
    pipelines,
  );
  // Prometheus's text format, outside the contract (docs/hosted.md): the operator's token, or loopback locally.
  const exposition = new MetricsExposition(deps, requests);
  app.get('/metrics', requests.labelMetrics(), metricsAuth(deps), async (c) => {
    const { contentType, body } = await exposition.text();
    return c.body(body, 200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  });
  app.route('/', docsRoutes());
  const onError = errorHandler(deps);
  if (deps.config.console) {
    // The console's pages are some fifty modules a server needs only once someone opens them: loaded on the first
    // request under /console, off the start-up path.
    let mounted: Promise<Hono<AppEnv>> | undefined;
    const consoleApp = () =>
      (mounted ??= import('./console/index.js').then(({ consoleRoutes }) => {
        const sub = new Hono<AppEnv>();
        sub.route(
          '/console',
          consoleRoutes({
            config: deps.config,
            wallClock: deps.wallClock,
            // The console acts only through this same app's public API, in-process (it can never do what the API cannot);
            // its calls carry bindings no outside request can, so the request log tells them apart.
            fetch: (path: string, init: RequestInit) => app.request(path, init, CONSOLE_CALL),
            operatorThrottle: deps.operatorThrottle,
            keySignInThrottle: deps.keySignInThrottle,
            clientAddress: (c) => deps.clientAddresses.of(c),
            // Which tenant a session belongs to (its bound), and whether its key still works: a read, not an action.
            tenantOfKey: (apiKey) => tenantOfKey(deps, apiKey),
            onSessionsFull: () => deps.meter.refused('sessions'),
          }),
        );
        sub.notFound(notFound);
        sub.onError(onError);
        return sub;
      }));
    const toConsole = async (c: Context<AppEnv>) => await (await consoleApp()).fetch(c.req.raw, c.env);
    app.all('/console', toConsole);
    app.all('/console/*', toConsole);
    app.get('/', (c) => c.redirect('/console'));
  }
  app.notFound(notFound);
  app.onError(onError);
  return Object.assign(app, { metrics: exposition, pipelines });
}

const notFound = (c: Context<AppEnv>) =>
  errorResponse(
    c,
    new DomainError('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`).withHint(
      notFoundHint(c.req.method, c.req.path),
    ),
  );

/** How long a client is asked to wait after a 503 for a database it cannot reach. */
const STORE_RETRY_AFTER_SECONDS = 2;

/** The one error mapping: a domain error as its `{code, message}`, anything unexpected as a logged 500. */
function errorHandler(deps: ServerDeps) {
  return (err: Error, c: Context<AppEnv>) => {
    if (err instanceof DomainError) {
      // Nothing ran: the client may retry at once, and a load balancer sends the retry to another instance.
      if (err.errorName === 'INSTANCE_STOPPING') c.header('Retry-After', '1');
      return errorResponse(c, err);
    }
    if (err instanceof HTTPException && err.status < 500) {
      return c.json(errorBody(400, err.message || 'Bad request'), err.status);
    }
    if (clientAborted(err, c)) return c.body(null, CLIENT_CLOSED_REQUEST);
    // The store's own name for a database it cannot reach (store/seam.ts): an answer, never a 500.
    if (err.name === 'StoreUnavailable') {
      c.header('Retry-After', String(STORE_RETRY_AFTER_SECONDS));
      return errorResponse(c, new DomainError('STORE_UNAVAILABLE'));
    }
    // The message of an unexpected error may hold anything; only its stack goes to the log, with the request id.
    deps.logger.error({ err, requestId: c.get('requestId') }, 'unexpected error');
    return errorResponse(c, new DomainError('SYSTEM_ERROR'));
  };
}
