import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Config } from '../config.js';
import type { FailureThrottle } from '../http/failure-throttle.js';
import { apiClient, type AppFetch } from './api.js';
import { SCRIPT, STYLE } from './assets.js';
import { PAGE_HEADERS, type ConsoleEnv } from './page.js';
import { cardsRoutes } from './pages/cards.js';
import { eventRoutes } from './pages/events.js';
import { homeRoutes } from './pages/home.js';
import { operatorRoutes } from './pages/operator.js';
import { readinessRoutes } from './pages/readiness.js';
import { requestRoutes } from './pages/requests.js';
import { signInRoutes } from './pages/signin.js';
import { simulateRoutes } from './pages/simulate/index.js';
import { transactionRoutes } from './pages/transactions.js';
import { webhookRoutes } from './pages/webhooks.js';
import { clearedCookie, cookieValue, csrfMatches, SessionStore } from './session.js';

const ASSET_HEADERS = { 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' };
/** The largest console form read (a session's forms are a few hundred bytes; its JSON fields a few KB). */
const MAX_FORM_BYTES = 1024 * 1024;
const SIGN_IN = '/console/signin';

export interface ConsoleOptions {
  config: Config;
  wallClock: () => number;
  /** The app's own fetch: every console action is an API call answered by the same app. */
  fetch: AppFetch;
  /** Failed operator sign-ins count with failed admin tokens, per client address. */
  operatorThrottle: FailureThrottle;
  /** Failed API-key sign-ins, per client address. */
  keySignInThrottle: FailureThrottle;
  /** The client of a request, as every per-client throttle counts it (a trusted proxy's X-Forwarded-For read). */
  clientAddress: (c: Context) => string | undefined;
  /** The tenant of a working API key; undefined once the key stops working (revoked, its sandbox deleted). */
  tenantOfKey: (apiKey: string) => Promise<string | undefined>;
  /** A sign-in refused because the session store is full. */
  onSessionsFull: () => void;
}

/** The web console (docs/design.md section 12), mounted at /console. */
export function consoleRoutes(opts: ConsoleOptions) {
  const sessions = new SessionStore(opts.wallClock);
  const operatorEnabled = Boolean(opts.config.adminToken);
  const app = new Hono<ConsoleEnv>();
  app.get('/assets/console.css', (c) =>
    c.body(STYLE, 200, { ...ASSET_HEADERS, 'Content-Type': 'text/css; charset=utf-8' }),
  );
  app.get('/assets/console.js', (c) =>
    c.body(SCRIPT, 200, { ...ASSET_HEADERS, 'Content-Type': 'text/javascript; charset=utf-8' }),
  );
  app.route(
    '/',
    signInRoutes({
      sessions,
      fetch: opts.fetch,
      operatorThrottle: opts.operatorThrottle,
      keySignInThrottle: opts.keySignInThrottle,
      clientAddress: opts.clientAddress,
      operatorEnabled,
      tenantOfKey: opts.tenantOfKey,
      onSessionsFull: opts.onSessionsFull,
    }),
  );
  // Everything below needs a session; a POST also needs the session's CSRF token.
  app.use('*', signedIn({ sessions, fetch: opts.fetch, tenantOfKey: opts.tenantOfKey }));
  app.post('/signout', (c) => {
    sessions.end(c.get('session').id);
    return c.body(null, 303, { Location: SIGN_IN, 'Set-Cookie': clearedCookie(c) });
  });
  app.route('/operator', operatorRoutes());
  // An operator session has no API key: the account pages send it to its own view.
  app.use('*', async (c, next) => {
    if (!c.get('session').apiKey) return c.redirect('/console/operator', 303);
    await next();
  });
  app.route('/', homeRoutes());
  app.route('/cards', cardsRoutes());
  app.route('/transactions', transactionRoutes());
  app.route('/simulate', simulateRoutes());
  app.route('/webhooks', webhookRoutes());
  app.route('/requests', requestRoutes());
  app.route('/events', eventRoutes());
  app.route('/readiness', readinessRoutes());
  return app;
}

/**
 * The session of the request's cookie, its API client and the alias cache, for the handlers after it; no session
 * goes to sign-in (its form unread), a form past MAX_FORM_BYTES is a 413, and a POST whose CSRF token is not the
 * session's is refused (its form, minus the token, is kept).
 */
function signedIn(opts: {
  sessions: SessionStore;
  fetch: AppFetch;
  tenantOfKey: ConsoleOptions['tenantOfKey'];
}): MiddlewareHandler<ConsoleEnv> {
  const aliases = new Map<string, string | null>();
  // Read only once a session is known: a form without one is never read (the app closes its connection instead).
  const formLimit = bodyLimit({
    maxSize: MAX_FORM_BYTES,
    onError: (c) => c.html('<!DOCTYPE html><title>Refused</title><p>Form too large.</p>', 413, PAGE_HEADERS),
  });
  return async function signedIn(c, next) {
    let session = opts.sessions.find(cookieValue(c.req.header('cookie')));
    // A session whose key stopped working (revoked, or its child sandbox deleted) ends here, not 8 hours later.
    if (session?.apiKey !== undefined && (await opts.tenantOfKey(session.apiKey)) === undefined) {
      opts.sessions.end(session.id);
      session = undefined;
    }
    if (!session) return c.redirect(SIGN_IN, c.req.method === 'GET' ? 302 : 303);
    if (c.req.method === 'POST') {
      let withinLimit = false;
      const refused = await formLimit(c, async () => void (withinLimit = true));
      if (!withinLimit) return refused as Response;
      const raw = await c.req.parseBody();
      if (!csrfMatches(session, raw._csrf)) {
        return c.html('<!DOCTYPE html><title>Refused</title><p>Form expired: reload the page.</p>', 403, PAGE_HEADERS);
      }
      const form: Record<string, string> = {};
      for (const [k, v] of Object.entries(raw)) if (k !== '_csrf' && typeof v === 'string') form[k] = v;
      c.set('form', form);
    }
    c.set('session', session);
    c.set('api', apiClient(opts.fetch, session));
    c.set('aliases', aliases);
    await next();
  };
}
