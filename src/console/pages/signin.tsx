import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { FC } from 'hono/jsx';
import type { FailureThrottle } from '../../http/failure-throttle.js';
import { credentialsThrottled } from '../../http/middleware/auth.js';
import { apiClient, type AppFetch } from '../api.js';
import { PAGE_HEADERS, type ConsoleEnv } from '../page.js';
import { crossSite } from '../same-site.js';
import { SessionsFull, sessionCookie, type Session, type SessionStore } from '../session.js';
import { Shell } from '../shell.js';

// The sign-in page: an API key (and, when the server has one, the operator token). Posted in the body only,
// never put in a URL; what was typed is not echoed back on an error (it is a secret).

type SignInError = { code: unknown; message: unknown };

/** The largest sign-in form read (a key or a token and the form's own names fit many times over). */
const MAX_SIGN_IN_BYTES = 8 * 1024;

const SignIn: FC<{ error?: SignInError; operator: boolean }> = ({ error, operator }) => (
  <Shell title="Sign in" bare>
    <div class="panel">
      <h1>Sign in</h1>
      <p class="muted">Use an API key of a sandbox account. The console makes the same API calls your code makes.</p>
      {error && (
        <div class="flash error" role="alert">
          <strong>Sign-in failed</strong>
          Error <code>{String(error.code)}</code>: {String(error.message)}
        </div>
      )}
      <form method="post" action="/console/signin" class="stack">
        <div class="field">
          <label for="api-key">API key</label>
          <input id="api-key" name="apiKey" type="password" autocomplete="off" spellcheck={false} required />
        </div>
        <button type="submit">Sign in</button>
      </form>
    </div>
    {operator && (
      <div class="panel">
        <h2>Operator</h2>
        <form method="post" action="/console/operator/signin" class="stack">
          <div class="field">
            <label for="admin-token">Operator token</label>
            <input id="admin-token" name="adminToken" type="password" autocomplete="off" required />
          </div>
          <button type="submit" class="secondary">
            Operator sign-in
          </button>
        </form>
      </div>
    )}
  </Shell>
);

export interface SignInOptions {
  sessions: SessionStore;
  /** The app's own fetch: a credential is proven by one call of the API it opens. */
  fetch: AppFetch;
  /** Failed operator sign-ins count with failed admin tokens, per client address. */
  operatorThrottle: FailureThrottle;
  /** Failed API-key sign-ins, per client address. */
  keySignInThrottle: FailureThrottle;
  /** The client of a request (undefined in-process), as every per-client throttle counts it. */
  clientAddress: (c: Context) => string | undefined;
  /** Whether the server has an operator token (else the operator form is not shown, and no token signs in). */
  operatorEnabled: boolean;
  /** The tenant of a working API key (an account, or the parent of a child sandbox); undefined once it stops working. */
  tenantOfKey: (apiKey: string) => Promise<string | undefined>;
  /** A sign-in refused because the session store is full (the operator's metrics count it). */
  onSessionsFull: () => void;
}

type View = (
  c: Context,
  status: 200 | 400 | 403 | 413 | 429,
  error?: SignInError,
  headers?: Record<string, string>,
) => Response;

/** The sign-in page, with an error when one is given. */
const signInView =
  (operator: boolean): View =>
  (c, status, error, headers = {}) =>
    c.html('<!DOCTYPE html>' + SignIn({ error, operator })!.toString(), status, { ...PAGE_HEADERS, ...headers });

/** A session for a proven credential, with its cookie; a full session store is a 429, nobody else signed out. */
async function signedIn(
  c: Context,
  opts: SignInOptions,
  view: View,
  fields: Pick<Session, 'apiKey' | 'adminToken'>,
  to: string,
) {
  let session: Session;
  try {
    const tenant = fields.apiKey === undefined ? 'operator' : ((await opts.tenantOfKey(fields.apiKey)) ?? 'unknown');
    session = opts.sessions.create(fields, tenant);
  } catch (err) {
    if (!(err instanceof SessionsFull)) throw err;
    opts.onSessionsFull();
    const error = { code: 429, message: 'The console is at its session limit: try again later' };
    return view(c, 429, error, { 'Retry-After': '60' });
  }
  return c.body(null, 303, { Location: to, 'Set-Cookie': sessionCookie(c, session.id) });
}

/** The form field, trimmed ('' when absent). */
async function typed(c: Context, name: string): Promise<string> {
  const value = (await c.req.parseBody())[name];
  return typeof value === 'string' ? value.trim() : '';
}

/** What an HTTP header can carry: a credential with any other character is no credential (and no 500). */
const HEADER_SAFE = /^[\x21-\x7e]*$/;

/** The 429 page of an address past its failed credentials. */
function throttledView(c: Context, view: View, waitSeconds: number, what: string): Response {
  const { code, message } = credentialsThrottled(waitSeconds, what);
  return view(c, 429, { code, message }, { 'Retry-After': String(waitSeconds) });
}

/**
 * An API key is proven the way a partner proves it: one authenticated read. Failures count per address (a key is
 * long and random, but a form that answers at the server's speed is still a guessing machine); an address past its
 * bound has its wrong keys answered 429, while a working key still signs in (the throttle slows guesses, and must
 * never lock a partner out of its own console).
 */
const apiKeySignIn = (opts: SignInOptions, view: View) => async (c: Context) => {
  const address = opts.clientAddress(c) ?? 'local';
  const refused = (error: SignInError) => {
    const wait = opts.keySignInThrottle.waitSeconds(address);
    if (wait > 0) return throttledView(c, view, wait, 'API keys');
    opts.keySignInThrottle.fail(address);
    return view(c, 400, error);
  };
  const apiKey = await typed(c, 'apiKey');
  if (!HEADER_SAFE.test(apiKey)) return refused({ code: 11002, message: 'Invalid or revoked API key' });
  if (apiKey === '') return view(c, 400, { code: 400, message: 'API key is required' });
  const answer = await apiClient(opts.fetch, { apiKey }).post('/v1/wallet/assetList', {});
  if (answer.ok) return await signedIn(c, opts, view, { apiKey }, '/console');
  // A tenant past its budget is told so as the API tells it: 429 and when to try again.
  if (answer.status === 429) return view(c, 429, answer.body, { 'Retry-After': '1' });
  if (answer.status === 401 || answer.status === 403) return refused(answer.body);
  return view(c, 400, answer.body);
};

/**
 * The operator token is proven by an operator call; failures count with failed admin tokens, per address. As on the
 * operator API, the right token signs in whatever the throttle says.
 */
const operatorSignIn = (opts: SignInOptions, view: View) => async (c: Context) => {
  const address = opts.clientAddress(c) ?? 'local';
  const refused = (code: unknown) => {
    const wait = opts.operatorThrottle.waitSeconds(address);
    if (wait > 0) return throttledView(c, view, wait, 'operator tokens');
    opts.operatorThrottle.fail(address);
    return view(c, 400, { code, message: 'Invalid operator token' });
  };
  const adminToken = await typed(c, 'adminToken');
  if (!HEADER_SAFE.test(adminToken)) return refused(401);
  const api = apiClient(opts.fetch, { adminToken });
  const answer = await api.send('GET', '/admin/v1/accounts/{id}', { params: { id: '-' } });
  // A wrong token is 401; a right one reaches the route and finds no account "-" (404).
  if (!opts.operatorEnabled || answer.status === 401 || answer.status === 403 || adminToken === '') {
    return refused(answer.ok ? 401 : answer.body.code);
  }
  return await signedIn(c, opts, view, { adminToken }, '/console/operator');
};

/** Sign-in with an API key or the operator token: each proven by one API call, then a session and its cookie. */
export function signInRoutes(opts: SignInOptions) {
  const view = signInView(opts.operatorEnabled);
  const app = new Hono<ConsoleEnv>().get('/signin', (c) => view(c, 200));
  // A sign-in posted from another site would sign the browser into the attacker's account (login CSRF).
  for (const path of ['/signin', '/operator/signin']) {
    app.post(path, async (c, next) => {
      if (!crossSite(c)) return next();
      return view(c, 403, { code: 403, message: 'Sign-in refused: the form was posted from another site' });
    });
    // Anyone may post here, without a key and so without a budget: a sign-in form is a few hundred bytes, and a
    // megabyte of it cost the server what a megabyte of any form costs to parse.
    app.post(
      path,
      bodyLimit({
        maxSize: MAX_SIGN_IN_BYTES,
        onError: (c) => view(c, 413, { code: 413, message: 'Sign-in form too large' }, { Connection: 'close' }),
      }),
    );
  }
  return app.post('/signin', apiKeySignIn(opts, view)).post('/operator/signin', operatorSignIn(opts, view));
}
