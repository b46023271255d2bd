import type { MiddlewareHandler } from 'hono';
import ipaddr from 'ipaddr.js';
import { authenticate } from '../../domain/accounts/api-keys.js';
import { expireIfDue } from '../../domain/accounts/child-sandboxes.js';
import type { ServerDeps } from '../server-deps.js';

import type { AppEnv } from '../context.js';
import { errorResponse, setHint } from '../errors.js';
import { missingKeyHint, wrongKeyHint } from '../auth-hints.js';
import { DomainError } from '../../domain/kernel/errors.js';
import { MAX_FAILURES, MAX_NETWORK_FAILURES } from '../failure-throttle.js';

/**
 * X-API-KEY authentication. A missing key answers 401 {code: 11002} or, with missingKeyStatus 403, a bare 403
 * with an empty body (both seen in production). The account's due timers run in the next steps (the catchUp step,
 * then the handler's `caughtUpNow`), not here.
 */
export function apiKeyAuth(deps: ServerDeps): MiddlewareHandler<AppEnv> {
  return async function apiKeyAuth(c, next) {
    const key = c.req.header('x-api-key');
    if (!key) {
      const hint = missingKeyHint(Object.keys(c.req.header()), deps.config.bootstrapAccount);
      if (deps.config.missingKeyStatus === 403) {
        setHint(c, hint);
        return c.body(null, 403);
      }
      throw new DomainError('AUTH_FAILED').withHint(hint);
    }
    // The key and its account in one read; the account clock's "now" comes from the same row (command.ts).
    const found = await authenticate(deps, key);
    if (!found) throw new DomainError('AUTH_FAILED').withHint(wrongKeyHint(key));
    const { account } = found;
    // An expired child sandbox is deleted when touched (and by the sweeper); its key then is simply unknown.
    if (account.expiresAtMs !== null && (await deps.transactions.run((deps) => expireIfDue(deps, account))))
      throw new DomainError('AUTH_FAILED').withHint(wrongKeyHint(key));
    c.set('account', account);
    c.set('accountSeen', found.seen);
    c.set('keyId', found.keyId);
    c.set('nextJobDueMs', found.nextJobDueMs);
    c.set('tenantId', found.tenantId);
    await next();
  };
}

const BEARER = /^bearer +(.*)$/i;

/**
 * `Authorization: Bearer <admin token>` for the operator API; refused outright when no token is configured. The right
 * token is never refused by the failure throttle: it slows wrong tokens only, so nobody can lock the operator out
 * (behind a proxy every client has the proxy's address, and ten wrong tokens a minute from anyone did). A guess
 * gains nothing from it: a token of at least 16 characters is not found at any rate a network carries, and an address
 * past its bound still has each wrong guess answered 429.
 */
export function adminAuth(deps: ServerDeps): MiddlewareHandler<AppEnv> {
  const throttle = deps.operatorThrottle;
  return async function adminAuth(c, next) {
    const expected = deps.config.adminToken;
    if (!expected) throw new DomainError('ADMIN_DISABLED');
    const header = c.req.header('authorization') ?? '';
    // The auth scheme is case-insensitive (RFC 7235 section 2.1): `bearer` and `BEARER` are `Bearer`.
    const given = BEARER.exec(header)?.[1] ?? '';
    if (!constantTimeEqual(deps, given, expected)) {
      const address = deps.clientAddresses.of(c);
      const wait = address === undefined ? 0 : throttle.waitSeconds(address);
      if (wait > 0) {
        c.header('Retry-After', String(wait));
        return errorResponse(c, credentialsThrottled(wait));
      }
      if (address !== undefined) throttle.fail(address);
      throw new DomainError('ADMIN_AUTH_FAILED');
    }
    // The operator's connection is no anonymous one: its token is proven.
    const socket = c.env?.incoming?.socket;
    if (socket) deps.connectionGuard?.claim(socket);
    await next();
  };
}

/**
 * GET /metrics: the operator token in hosted mode; in local mode a loopback client (or an in-process request) as
 * well, since a developer's Prometheus scrapes its own machine, and the token from anywhere else.
 */
export function metricsAuth(deps: ServerDeps): MiddlewareHandler<AppEnv> {
  const admin = adminAuth(deps);
  return async function metricsAuth(c, next) {
    if (deps.config.mode === 'hosted' || c.req.header('authorization') !== undefined) return admin(c, next);
    const address = deps.clientAddresses.of(c);
    if (address !== undefined && !isLoopback(address)) throw new DomainError('METRICS_LOOPBACK_ONLY');
    await next();
  };
}

function isLoopback(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}

/** The 429 of an address past its failed credentials (`what`: "operator tokens", "API keys"). */
export function credentialsThrottled(waitSeconds: number, what = 'operator tokens'): DomainError {
  return new DomainError(
    'RATE_LIMITED',
    `Too many failed ${what} from this address or its network: at most ${MAX_FAILURES} a minute per address, ` +
      `${MAX_NETWORK_FAILURES} per network; retry in ${waitSeconds} s`,
  );
}

function constantTimeEqual(deps: ServerDeps, a: string, b: string): boolean {
  // Comparing HMACs keeps the comparison constant-time whatever the lengths.
  const ha = deps.secret.hmac('admin-token', a);
  const hb = deps.secret.hmac('admin-token', b);
  return ha.equals(hb) && a.length === b.length;
}
