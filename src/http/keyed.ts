import type { Context, Hono } from 'hono';
import type { ServerDeps } from '../server-deps.js';
import type { AppEnv } from './context.js';
import { echoIdempotencyKey, runKeyed } from './idempotency.js';

/** A keyed call, validated: the body the key is bound to and the command to run once under it. */
export interface KeyedCommand {
  body: unknown;
  run: (nowMs: number) => object;
}

/**
 * Declares a keyed endpoint (spec "Idempotency") on `routes`: registers `POST /<last part of endpoint>`, echoes a
 * well-formed Idempotency-Key on every answer (the 400s of body validation included), and runs the command in the
 * idempotency runner, with the wait an injected fault asked of this request passed to it explicitly.
 */
export function keyed(
  routes: Hono<AppEnv>,
  deps: ServerDeps,
  endpoint: string,
  prepare: (c: Context<AppEnv>) => Promise<KeyedCommand>,
): void {
  const path = endpoint.slice(endpoint.lastIndexOf('/'));
  routes.use(path, echoIdempotencyKey());
  routes.post(path, async (c) => {
    const { body, run } = await prepare(c);
    return runKeyed(c, deps, { endpoint, body, wait: c.get('injectedWait') }, run);
  });
}
