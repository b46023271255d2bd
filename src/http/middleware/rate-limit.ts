import type { MiddlewareHandler } from 'hono';
import type { ServerDeps } from '../../server-deps.js';
import type { AppEnv } from '../context.js';
import { DomainError } from '../../domain/errors.js';
import { errorResponse } from '../errors.js';

interface Bucket {
  tokens: number;
  atMs: number;
}

// One set of buckets per server, shared by /v1 and /sandbox/v1 so a key's budget covers both.
const bucketsByDeps = new WeakMap<ServerDeps, Map<string, Bucket>>();

function bucketsOf(deps: ServerDeps): Map<string, Bucket> {
  let buckets = bucketsByDeps.get(deps);
  if (!buckets) bucketsByDeps.set(deps, (buckets = new Map()));
  return buckets;
}

/**
 * Hosted mode: a token bucket per API key on the wall clock (a partner moving its account clock must not buy
 * requests), holding one second of requests as burst. Local mode is unlimited. Mount after `apiKeyAuth`, which
 * sets the key id, so unknown keys never take a bucket.
 */
export function rateLimit(deps: ServerDeps): MiddlewareHandler<AppEnv> {
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
      c.header('Retry-After', String(waitSeconds));
      return errorResponse(
        c,
        new DomainError('RATE_LIMITED', `Too many requests: at most ${perSecond} per second per API key`),
      );
    }
    bucket.tokens -= 1;
    return next();
  };
}
