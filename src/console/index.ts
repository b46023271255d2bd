import { Hono, type Context } from 'hono';
import type { Config } from '../config.js';
import { apiClient, type AppFetch } from './api.js';
import { SCRIPT, STYLE } from './assets.js';
import { cardRoutes } from './pages/cards.js';
import { eventRoutes } from './pages/events.js';
import { homeRoutes } from './pages/home.js';
import { operatorRoutes } from './pages/operator.js';
import { readinessRoutes } from './pages/readiness.js';
import { requestRoutes } from './pages/requests.js';
import { SignIn } from './pages/signin.js';
import { simulateRoutes } from './pages/simulate.js';
import { transactionRoutes } from './pages/transactions.js';
import { webhookRoutes } from './pages/webhooks.js';
import { PAGE_HEADERS, type ConsoleEnv } from './page.js';
import { clientAddress, type FailureThrottle } from '../http/failure-throttle.js';
import { operatorThrottled } from '../http/middleware/auth.js';
import { crossSite } from './same-site.js';
import {
  clearedCookie,
  cookieValue,
  csrfMatches,
  SessionsFull,
  SessionStore,
  sessionCookie,
  type Session,
} from './session.js';

const ASSET_HEADERS = { 'Cache-Control': 'public, max-age=3600', 'X-Content-Type-Options': 'nosniff' };
const SIGN_IN = '/console/signin';

export interface ConsoleOptions {
  config: Config;
  wallClock: () => number;
  /** The app's own fetch: every console action is an API call answered by the same app. */
  fetch: AppFetch;
  /** Failed operator sign-ins count with failed admin tokens, per client address. */
  operatorThrottle: FailureThrottle;
}

/** The web console (docs/design.md section 12), mounted at /console. */
export function consoleRoutes(opts: ConsoleOptions) {
  const sessions = new SessionStore(opts.wallClock);
  const aliases = new Map<string, string | null>();
  const operatorEnabled = Boolean(opts.config.adminToken);
  const app = new Hono<ConsoleEnv>();
  const signInPage = (error?: { code: unknown; message: unknown }) =>
    '<!DOCTYPE html>' + SignIn({ error, operator: operatorEnabled })!.toString();

  app.get('/assets/console.css', (c) =>
    c.body(STYLE, 200, { ...ASSET_HEADERS, 'Content-Type': 'text/css; charset=utf-8' }),
  );
  app.get('/assets/console.js', (c) =>
    c.body(SCRIPT, 200, { ...ASSET_HEADERS, 'Content-Type': 'text/javascript; charset=utf-8' }),
  );
  /** A session for a proven credential, with its cookie; a full session store is a 429, nobody else signed out. */
  const signedIn = (c: Context, fields: Pick<Session, 'apiKey' | 'adminToken'>, to: string) => {
    let session: Session;
    try {
      session = sessions.create(fields);
    } catch (err) {
      if (!(err instanceof SessionsFull)) throw err;
      const error = { code: 429, message: 'The console is at its session limit: try again later' };
      return c.html(signInPage(error), 429, { ...PAGE_HEADERS, 'Retry-After': '60' });
    }
    return c.body(null, 303, { Location: to, 'Set-Cookie': sessionCookie(c, session.id) });
  };

  app.get('/signin', (c) => c.html(signInPage(), 200, PAGE_HEADERS));
  // A sign-in posted from another site would sign the browser into the attacker's account (login CSRF).
  for (const path of ['/signin', '/operator/signin']) {
    app.post(path, async (c, next) => {
      if (!crossSite(c)) return next();
      const error = { code: 403, message: 'Sign-in refused: the form was posted from another site' };
      return c.html(signInPage(error), 403, PAGE_HEADERS);
    });
  }
  app.post('/signin', async (c) => {
    const form = await c.req.parseBody();
    const apiKey = typeof form.apiKey === 'string' ? form.apiKey.trim() : '';
    // The key is proven the way a partner proves it: one authenticated read.
    const answer = await apiClient(opts.fetch, { apiKey }).post('/v1/wallet/assetList', {});
    if (!answer.ok) {
      const error = apiKey === '' ? { code: 400, message: 'API key is required' } : answer.body;
      // A tenant past its budget is told so as the API tells it: 429 and when to try again.
      if (answer.status === 429) return c.html(signInPage(error), 429, { ...PAGE_HEADERS, 'Retry-After': '1' });
      return c.html(signInPage(error), 400, PAGE_HEADERS);
    }
    return signedIn(c, { apiKey }, '/console');
  });
  app.post('/operator/signin', async (c) => {
    const address = clientAddress(c) ?? 'local';
    const wait = opts.operatorThrottle.waitSeconds(address);
    if (wait > 0) {
      const { code, message } = operatorThrottled(wait);
      return c.html(signInPage({ code, message }), 429, { ...PAGE_HEADERS, 'Retry-After': String(wait) });
    }
    const form = await c.req.parseBody();
    const adminToken = typeof form.adminToken === 'string' ? form.adminToken.trim() : '';
    const answer = await apiClient(opts.fetch, { adminToken }).send('GET', '/admin/v1/accounts/-');
    // A wrong token is 401; a right one reaches the route and finds no account "-" (404).
    if (!operatorEnabled || answer.status === 401 || answer.status === 403 || adminToken === '') {
      opts.operatorThrottle.fail(address);
      return c.html(
        signInPage({ code: answer.body?.code ?? 401, message: 'Invalid operator token' }),
        400,
        PAGE_HEADERS,
      );
    }
    return signedIn(c, { adminToken }, '/console/operator');
  });

  // Everything below needs a session; a POST also needs the session's CSRF token.
  app.use('*', async (c, next) => {
    const session = sessions.find(cookieValue(c.req.header('cookie')));
    if (!session) return c.redirect(SIGN_IN, c.req.method === 'GET' ? 302 : 303);
    if (c.req.method === 'POST') {
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
  });
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
  app.route('/cards', cardRoutes());
  app.route('/transactions', transactionRoutes());
  app.route('/simulate', simulateRoutes());
  app.route('/webhooks', webhookRoutes());
  app.route('/requests', requestRoutes());
  app.route('/events', eventRoutes());
  app.route('/readiness', readinessRoutes());
  return app;
}
