import type { Context, Hono, MiddlewareHandler } from 'hono';
import { readIndex, type Operation } from '../contracts/files.js';
import type { ServerDeps } from './server-deps.js';
import { runCommand } from './command.js';
import type { AppEnv } from './context.js';
import { echoIdempotencyKey, runKeyed } from './idempotency.js';
import { bodyBounds, readJsonObject, readOptionalJsonObject } from './middleware/json-body.js';
import type { Body } from './validate.js';
import type { FairShare } from '../domain/kernel/fair-share.js';

// The routes of /v1, /sandbox/v1 and /admin/v1 are built from contracts/index.json, not declared beside it: an
// operation the contract does not list has no route (404), and what the contract says of an operation (its body
// schema, whether it is idempotent, whether the request log records it, what a readiness run makes of it) is the
// one place that decides it. Everything is resolved here, once, when the app is built: a request finds its whole
// pipeline by the router's match and pays for no lookup of its own.

/** An operation's handler that answers by itself: a read, or a write whose answer is not a stored one. */
type Answer = (c: Context<AppEnv>, body: Body) => Response | Promise<Response>;
/** A mutation to run once, in one transaction, at the account's "now"; its result is the answer's body. */
type Run = (nowMs: number) => object;
/**
 * A handler that validates what the schema cannot and returns the mutation to run; the contract then decides
 * how it runs: under an Idempotency-Key (`idempotent: true`) or as a plain command.
 */
export interface Command {
  command: (c: Context<AppEnv>, body: Body) => Run | Promise<Run>;
}
type Handler = Answer | Command;
/** An API's handlers by the contract's operation key (`POST /v1/card/create`). */
export type Handlers = Readonly<Record<string, Handler>>;

export const command = (prepare: Command['command']): Command => ({ command: prepare });

/** One operation of the contract, as a route's steps see it. */
export interface Route {
  /** `POST /v1/card/create`, as contracts/index.json names it. */
  key: string;
  method: string;
  /** The path as the contract writes it (`/admin/v1/accounts/{id}`). */
  path: string;
  operation: Operation;
}

/** The steps of a route, in order, ending with its handler; a `false` step is left out (a switch of the contract). */
export type Pipeline = (route: Route, handler: Step) => (Step | false)[];

let routes: Route[] | undefined;

/** The operations of the contract at or under `prefix` (read once a process: the file does not change under it). */
function contractRoutes(prefix: string): Route[] {
  routes ??= Object.entries(readIndex().operations).map(([key, operation]) => {
    const [method, path] = key.split(' ') as [string, string];
    return { key, method, path, operation };
  });
  return routes.filter((r) => r.path === prefix || r.path.startsWith(`${prefix}/`));
}

/**
 * Mounts every operation of the contract at or under `prefix` on `app` with its group's pipeline and, given a
 * `fallback`, the fallback's steps then a 404 for any other path under it. An operation the contract lists without a handler here is a server that
 * cannot keep its contract: it stops the start.
 */
export function mountContract(
  app: Hono<AppEnv>,
  deps: ServerDeps,
  prefix: string,
  handlers: Handlers,
  pipeline: Pipeline,
  fallback?: (MiddlewareHandler<AppEnv> | false)[],
): void {
  for (const route of contractRoutes(prefix)) {
    const handler = handlers[route.key];
    if (handler === undefined) throw new Error(`${route.key} is in contracts/index.json but has no handler`);
    const steps = pipeline(route, handlerStep(deps, route, handler)).filter((s) => s !== false);
    on(app, route.method, honoPath(route.path), steps);
  }
  if (fallback) {
    const steps = fallback.filter((s) => s !== false);
    on(app, 'ALL', `${prefix}/*`, [...steps, (c: Context<AppEnv>) => c.notFound()]);
  }
}

/** Hono's `on` for a list of steps built at run time (its typed overloads want them written out). */
function on(app: Hono<AppEnv>, method: string, path: string, steps: Step[]): void {
  (app.on as (m: string, p: string, ...h: Step[]) => unknown)(method, path, ...steps);
}

/** A middleware, or a handler that answers without a `next` (Hono takes a plain Response from either). */
type Step = MiddlewareHandler<AppEnv> | ((c: Context<AppEnv>) => Response | Promise<Response>);

/** `/admin/v1/accounts/{id}` -> `/admin/v1/accounts/:id`. */
const honoPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

/**
 * The body step: for an operation with a request schema, the Content-Type, the JSON and the schema are checked
 * here for every request (400 before any handler runs); an operation without one takes no body.
 */
export function body({ key, operation }: Route, fairShare?: FairShare): MiddlewareHandler<AppEnv> {
  if (operation.request === null) {
    return async function noBody(c, next) {
      c.set('body', NO_BODY);
      await next();
    };
  }
  const read = operation.requestRequired === false ? readOptionalJsonObject : readJsonObject;
  const bounds = bodyBounds(operation);
  return async function body(c, next) {
    // A tenant's long body (a snapshot) is checked in slices, in its turns (domain/kernel/fair-share.ts).
    const tenantId = c.get('tenantId');
    const pause = fairShare && tenantId ? () => fairShare.turn(tenantId) : undefined;
    c.set('body', await read(c, key, bounds, pause));
    await next();
  };
}

const NO_BODY: Body = Object.freeze({});

/** The idempotency step: echoes a well-formed key on every answer of an idempotent operation, its 400s included. */
export function idempotency({ operation }: Route): MiddlewareHandler<AppEnv> | false {
  return operation.idempotent && echoIdempotencyKey();
}

/**
 * The handler as its route's last step. A command runs under the idempotency runner when its operation is
 * idempotent, else as a plain command; an idempotent operation whose handler answers by itself could keep no
 * promise of a replay, and stops the start.
 */
function handlerStep(deps: ServerDeps, route: Route, handler: Handler): Step {
  if (typeof handler === 'function') {
    if (route.operation.idempotent) throw new Error(`${route.key} is idempotent: its handler must be a command`);
    return (c: Context<AppEnv>) => handler(c, c.get('body'));
  }
  if (!route.operation.idempotent) {
    return async (c: Context<AppEnv>) => {
      const run = await handler.command(c, c.get('body'));
      return c.json(runCommand(c, deps, run), 200);
    };
  }
  // The key is bound to the endpoint as the partner API names it (`card/create`), as stored keys always were.
  const endpoint = route.path.replace(/^\/(sandbox\/|admin\/)?v1\//, '');
  return async (c: Context<AppEnv>) => {
    const body = c.get('body');
    const run = await handler.command(c, body);
    return runKeyed(c, deps, { endpoint, body, wait: c.get('injectedWait') }, run);
  };
}
