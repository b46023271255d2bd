import type { Context, Hono, MiddlewareHandler } from 'hono';
import { readIndex, type Operation } from '../contracts/files.js';
import type { ServerDeps } from './server-deps.js';
import type { AppEnv, Command } from './context.js';
import { runCommand } from './run-command.js';
import { echoIdempotencyKey, runKeyed } from './idempotency.js';
import { bodyBounds, readJsonObject, readOptionalJsonObject } from './middleware/json-body.js';
import type { OperationKey, RequestBody } from './request-body.js';
import type { FairShare } from '../domain/kernel/fair-share.js';

// The routes of /v1, /sandbox/v1 and /admin/v1 are built from contracts/index.json, not declared beside it: an
// operation the contract does not list has no route (404), and what the contract says of an operation (its body
// schema, whether it is idempotent, whether the request log records it, what a readiness run makes of it) is the
// one place that decides it. Everything is resolved here, once, when the app is built: a request finds its whole
// pipeline by the router's match and pays for no lookup of its own.

/** An operation's handler that answers by itself: a read, or a write whose answer is not a stored one. */
type Answer<B> = (c: Context<AppEnv>, body: B) => Response | Promise<Response>;
/**
 * The handler of an idempotent operation: it checks what the schema cannot and prepares the command (run-command.ts)
 * that the route's next step, the idempotency runner, runs under the request's Idempotency-Key.
 */
export interface CommandHandler<B> {
  toCommand: (c: Context<AppEnv>, body: B) => Command | Promise<Command>;
}
type Handler<B> = Answer<B> | CommandHandler<B>;
/**
 * An API's handlers by the contract's operation key (`POST /v1/card/create`), each reading its body as that
 * operation's contract types it (request-body.ts).
 */
export type Handlers = { readonly [Key in OperationKey]?: Handler<RequestBody<Key>> };

export const prepare = <B>(toCommand: CommandHandler<B>['toCommand']): CommandHandler<B> => ({ toCommand });

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

/** Each operation's steps by name, in order, as they were mounted (a test keeps the list checked in). */
export type PipelineNames = Map<string, string[]>;

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
  names?: PipelineNames,
): void {
  for (const route of contractRoutes(prefix)) {
    const handler = handlers[route.key as OperationKey] as Handler<unknown> | undefined;
    if (handler === undefined) throw new Error(`${route.key} is in contracts/index.json but has no handler`);
    const steps = pipeline(route, handlerStep(deps, route, handler)).filter((s) => s !== false);
    names?.set(
      route.key,
      steps.map((s) => s.name || 'anonymous'),
    );
    on(app, route.method, honoPath(route.path), steps);
  }
  if (fallback) {
    const steps = fallback.filter((s) => s !== false);
    on(app, 'ALL', `${prefix}/*`, [...steps, async (c: Context<AppEnv>) => await c.notFound()]);
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

const NO_BODY = Object.freeze({});

/** The idempotency step: echoes a well-formed key on every answer of an idempotent operation, its 400s included. */
export function idempotency({ operation }: Route): MiddlewareHandler<AppEnv> | false {
  return operation.idempotent && echoIdempotencyKey();
}

/**
 * The handler as its route's last step: it answers, or prepares a command. An idempotent operation's command is run
 * by the keyed runner, the step before; where the contract says an operation is not idempotent, its command runs
 * here as a plain one. An idempotent operation whose handler answers by itself could keep no promise of a replay,
 * and stops the start.
 */
function handlerStep(deps: ServerDeps, route: Route, handler: Handler<unknown>): Step {
  if (typeof handler === 'function') {
    if (route.operation.idempotent) throw new Error(`${route.key} is idempotent: its handler must prepare a command`);
    return async function answer(c: Context<AppEnv>) {
      return await handler(c, c.get('body'));
    };
  }
  if (!route.operation.idempotent) {
    return async function runPlainCommand(c: Context<AppEnv>) {
      const command = await handler.toCommand(c, c.get('body'));
      return c.json(await runCommand(c, deps, command), 200);
    };
  }
  // No answer here, and no next step: the keyed runner answers once this has returned (Hono takes the Response a
  // step returns only while none is set, so calling on past the last step would answer 404 first).
  return async function prepareCommand(c: Context<AppEnv>) {
    c.set('command', await handler.toCommand(c, c.get('body')));
  } as MiddlewareHandler<AppEnv>;
}

/**
 * The keyed runner, an idempotent operation's step before its handler: once the handler has prepared the command,
 * it runs it under the request's Idempotency-Key (idempotency.ts: replayed, refused, or run once and stored). A
 * handler that failed instead (its answer is the error) leaves nothing to run.
 */
export function keyedRunner(deps: ServerDeps, { operation, path }: Route): MiddlewareHandler<AppEnv> | false {
  if (!operation.idempotent) return false;
  // The key is bound to the endpoint as the partner API names it (`card/create`), as stored keys always were.
  const endpoint = path.replace(/^\/(sandbox\/|admin\/)?v1\//, '');
  return async function keyedRunner(c, next) {
    await next();
    const command = c.get('command');
    if (command === undefined) return;
    return runKeyed(c, deps, { endpoint, body: c.get('body'), wait: c.get('injectedWait') }, command);
  };
}
