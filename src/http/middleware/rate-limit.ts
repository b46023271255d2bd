import type { MiddlewareHandler } from 'hono';
import type { ServerDeps } from '../server-deps.js';
import type { AppEnv } from '../context.js';
import { DomainError } from '../../domain/kernel/errors.js';
import { errorResponse } from '../errors.js';
import { declaredLength } from './json-body.js';
import type { Bucket } from '../rate-limits.js';

/**
 * A tenant holds at most this many 429s at once; past it a 429 is answered at once and its connection closed, so a
 * tenant cannot pile up open requests (the server's connection cap is shared by every tenant).
 */
const MAX_HELD_PER_TENANT = 64;

/**
 * A request spends one token, and one more per this many bytes of its body: what a request costs the server is
 * mostly its bytes (a large body costs many small reads' worth of reading: bench/code-figures.md), so a key's
 * budget bounds its bytes as well as its requests. No legitimate body of this API comes near it.
 */
const BYTES_PER_TOKEN = 64 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The 429s the tenant holds now (each a timer and its connection).
 * @internal exported for the test that a held 429 whose client hung up no longer counts in flight
 */
export function heldRefusals(deps: ServerDeps, tenantId: string): number {
  return deps.rateLimits.held.get(tenantId) ?? 0;
}

/**
 * Hosted mode: a token bucket per tenant on the wall clock (a partner moving its account clock must not buy
 * requests), holding one second of requests as burst. One budget for all the tenant's keys: an account and its
 * child sandboxes share it, so creating children buys no requests. Local mode is unlimited. Mount after
 * `apiKeyAuth`, which sets the tenant, so unknown keys never take a bucket.
 *
 * A 429 is held for `rateLimitHoldMs` (1 s) before it is sent. Answered at once, a refusal costs the server about
 * what a read costs (parsing, authentication, the answer), and a client that retries at once gets it back at once:
 * one tenant flooding 32 requests at a time made 1,200 refusals a second, 0.3 of the core every tenant shares
 * (docs/hosted.md). Held, a key past its budget gets at most its requests in flight refused per second, so what it
 * costs the others is bounded by its concurrency, not by the server's speed. A held request costs a timer and its
 * open connection; MAX_HELD_PER_TENANT bounds those.
 */
export function rateLimit(deps: ServerDeps): MiddlewareHandler<AppEnv> {
  const holdMs = deps.config.rateLimitHoldMs;
  const { buckets, held } = deps.rateLimits;
  return async function rateLimit(c, next) {
    if (deps.config.mode !== 'hosted') return next();
    // This instance's share of the tenant's rate (domain/kernel/deployment.ts): the whole of it on one instance.
    const perSecond = deps.deployment.share(deps.config.rateLimitPerSecond);
    const refill = (bucket: Bucket) => refillBucket(bucket, perSecond, deps.wallClock());
    const tenant = c.get('tenantId');
    const bucket = buckets.get(tenant) ?? { tokens: perSecond, atMs: deps.wallClock() };
    buckets.set(tenant, bucket);
    refill(bucket);
    // A declared body is paid for before it is read; one without a length (chunked) as it arrives.
    const declared = c.req.method === 'GET' || c.req.method === 'HEAD' ? 0 : declaredLength(c);
    const cost = Math.min(perSecond, 1 + Math.floor((declared ?? 0) / BYTES_PER_TOKEN));
    if (bucket.tokens < cost) {
      deps.meter.refused('rate');
      const waitSeconds = Math.max(1, Math.ceil((cost - bucket.tokens) / perSecond));
      const holding = held.get(tenant) ?? 0;
      if (holdMs > 0 && holding < MAX_HELD_PER_TENANT) {
        held.set(tenant, holding + 1);
        try {
          await sleep(holdMs);
        } finally {
          const left = held.get(tenant)! - 1;
          if (left === 0) held.delete(tenant);
          else held.set(tenant, left);
        }
      } else if (holdMs > 0) {
        c.header('Connection', 'close');
      }
      c.header('Retry-After', String(waitSeconds));
      return errorResponse(c, rateLimited(perSecond));
    }
    bucket.tokens -= cost;
    c.set('spendTokens', (tokens) => {
      refill(bucket);
      const wanted = Math.min(perSecond, tokens);
      if (bucket.tokens < wanted) {
        deps.meter.refused('rate');
        return { ok: false, waitSeconds: Math.max(1, Math.ceil((wanted - bucket.tokens) / perSecond)) };
      }
      bucket.tokens -= wanted;
      return { ok: true };
    });
    if (declared === undefined)
      c.set(
        'spendBodyBytes',
        bodySpender(bucket, refill, () => deps.meter.refused('rate')),
      );
    return next();
  };
}

/** Tokens come back at `perSecond`, up to one second's worth. */
function refillBucket(bucket: Bucket, perSecond: number, nowMs: number): void {
  bucket.tokens = Math.min(perSecond, bucket.tokens + (Math.max(0, nowMs - bucket.atMs) * perSecond) / 1000);
  bucket.atMs = nowMs;
}

/** The 429 of a tenant past its budget. */
function rateLimited(perSecond: number): DomainError {
  return new DomainError(
    'RATE_LIMITED',
    `Too many requests: at most ${perSecond} per second per account, its child sandboxes included`,
  );
}

/**
 * Spends a token of the bucket per BYTES_PER_TOKEN of a body read without a declared length (the request's own
 * token paid for the first); false once the bucket is empty: the body is then refused and no more of it read.
 */
function bodySpender(
  bucket: Bucket,
  refill: (bucket: Bucket) => void,
  onRefused: () => void,
): (bytes: number) => boolean {
  let read = 0;
  let paid = 1;
  let refused = false;
  return (bytes) => {
    read += bytes;
    while (read > paid * BYTES_PER_TOKEN) {
      refill(bucket);
      if (bucket.tokens < 1) {
        if (!refused) onRefused();
        refused = true;
        return false;
      }
      bucket.tokens -= 1;
      paid++;
    }
    return true;
  };
}
