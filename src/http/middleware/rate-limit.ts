import type { MiddlewareHandler } from 'hono';
import type { Deps } from '../../domain/deps.js';
import type { AppEnv } from '../context.js';
import { ApiError, errorBody } from '../errors.js';

interface Bucket {
  tokens: number;
  atMs: number;
}

// One set of buckets per server, shared by /v1 and /sandbox/v1 so a key's budget covers both.
const bucketsByDeps = new WeakMap<Deps, Map<string, Bucket>>();

function bucketsOf(deps: Deps): Map<string, Bucket> {
  let buckets = bucketsByDeps.get(deps);
  if (!buckets) bucketsByDeps.set(deps, (buckets = new Map()));
  return buckets;
}

/**
 * Hosted mode: a token bucket per API key on the wall clock (a partner moving its account clock must not buy
 * requests), holding one second of requests as burst. Local mode is unlimited. Mount after `apiKeyAuth`, which
 * sets the key id, so unknown keys never take a bucket.
 */
export function rateLimit(deps: Deps): MiddlewareHandler<AppEnv> {
  const perSecond = deps.config.rateLimitPerSecond;
  const buckets = bucketsOf(deps);
  return async function rateLimit(c, next) {
    if (deps.config.mode !== 'hosted') return next();
    const keyId = c.get('keyId');
    const nowMs = deps.wallClock();
    const bucket = buckets.get(keyId) ?? { tokens: perSecond, atMs: nowMs };
    bucket.tokens = Math.min(perSecond, bucket.tokens + (Math.max(0, nowMs - bucket.atMs) * perSecond) / 1000);
    bucket.atMs = nowMs;
    buckets.set(keyId, bucket);
    if (bucket.tokens < 1) {
      const waitSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
      const err = new ApiError('RATE_LIMITED', `Too many requests: at most ${perSecond} per second per API key`);
      c.header('Retry-After', String(waitSeconds));
      return c.json(errorBody(err), err.status);
    }
    bucket.tokens -= 1;
    return next();
  };
}
