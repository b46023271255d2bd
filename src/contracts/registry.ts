import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { newAjv } from './ajv.js';
import {
  operationRoutes,
  readIndex,
  readSchemaFiles,
  type ContractIndex,
  type Operation,
  type OperationRoute,
} from './files.js';
import { closeObjects } from './strict.js';

// The contracts of every surface, compiled on first use (never on the server's start-up path).

export interface ContractViolation {
  schemaId: string;
  schemaPath: string;
  instancePath: string;
  message: string;
  /** The JSON Schema keyword that failed and its parameters (ajv's), when a schema check found it. */
  keyword?: string;
  params?: Record<string, unknown>;
}

export interface ValidateOptions {
  /** Properties the contract does not declare are violations (lenient by default, as partners should be). */
  strict?: boolean;
}

interface Loaded {
  index: ContractIndex;
  routes: OperationRoute[];
  lenient: Ajv2020;
  strict: Ajv2020;
}

let loaded: Loaded | undefined;

function load(): Loaded {
  if (loaded) return loaded;
  const index = readIndex();
  const files = readSchemaFiles();
  const lenient = newAjv();
  const strict = newAjv();
  for (const f of files) {
    lenient.addSchema(f.schema);
    strict.addSchema(closeObjects(f.schema));
  }
  loaded = { index, routes: operationRoutes(index), lenient, strict };
  return loaded;
}

function findRoute(method: string, path: string): OperationRoute | undefined {
  const bare = path.split('?')[0];
  const m = method.toUpperCase();
  return load().routes.find((r) => r.method === m && r.pattern.test(bare));
}

function findOperation(method: string, path: string): Operation | undefined {
  return findRoute(method, path)?.operation;
}

/** The contract's `METHOD /path/{param}` and its operation for a concrete request, when the contracts have it. */
export function contractFor(method: string, path: string): { key: string; operation: Operation } | undefined {
  const route = findRoute(method, path);
  return route && { key: route.key, operation: route.operation };
}

function validatorFor(
  schemaPath: string,
  opts: ValidateOptions | undefined,
): { id: string; validate: ValidateFunction } {
  const l = load();
  const id = l.index.base + schemaPath;
  const validate = (opts?.strict ? l.strict : l.lenient).getSchema(id);
  if (!validate) throw new Error(`contract schema ${schemaPath} is not loaded`);
  return { id, validate };
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  const extra = p.unevaluatedProperty ?? p.additionalProperty ?? p.missingProperty;
  return `${e.message ?? 'is invalid'}${extra !== undefined && e.keyword !== 'required' ? ` (${String(extra)})` : ''}`;
}

function check(schemaPath: string, value: unknown, opts: ValidateOptions | undefined): ContractViolation[] {
  const { id, validate } = validatorFor(schemaPath, opts);
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => ({
    schemaId: id,
    schemaPath: e.schemaPath,
    instancePath: e.instancePath,
    message: describe(e),
    keyword: e.keyword,
    params: e.params as Record<string, unknown>,
  }));
}

function violation(message: string, schemaId = '', instancePath = ''): ContractViolation {
  return { schemaId, schemaPath: '', instancePath, message };
}

const isEmpty = (body: unknown) => body === undefined || body === null || body === '';

/** Whether the contracts describe this route (path parameters and a query string are allowed). */
export function hasContract(method: string, path: string): boolean {
  return findOperation(method, path) !== undefined;
}

/** The request body against its contract; a route without one is a violation. */
export function validateRequest(
  method: string,
  path: string,
  body: unknown,
  opts?: ValidateOptions,
): ContractViolation[] {
  const op = findOperation(method, path);
  if (!op) return [violation(`no contract for ${method.toUpperCase()} ${path}`)];
  if (op.request === null) {
    const bodyless = isEmpty(body) || (typeof body === 'object' && Object.keys(body as object).length === 0);
    return bodyless ? [] : [violation('this request takes no body')];
  }
  if (op.requestRequired === false && isEmpty(body)) return [];
  return check(op.request, body, opts);
}

/**
 * A response against the contract of its route and status: a status the contract does not list is a violation,
 * except an error status covered by the route's `default` (any error answers the one error body).
 */
export function validateResponse(
  method: string,
  path: string,
  status: number,
  body: unknown,
  opts?: ValidateOptions,
): ContractViolation[] {
  const op = findOperation(method, path);
  if (!op) return [violation(`no contract for ${method.toUpperCase()} ${path}`)];
  const key = String(status);
  const schemaPath = key in op.responses ? op.responses[key] : status >= 400 ? op.responses.default : undefined;
  if (schemaPath === undefined) return [violation(`HTTP ${status} is not a status the contract lists`)];
  if (schemaPath === null) return isEmpty(body) ? [] : [violation(`HTTP ${status} has an empty body in the contract`)];
  if (isEmpty(body)) return [violation(`HTTP ${status} must have a JSON body`, load().index.base + schemaPath)];
  return check(schemaPath, body, opts);
}

/** A webhook event: the envelope, then the `data` of its type. */
export function validateEvent(envelope: unknown, opts?: ValidateOptions): ContractViolation[] {
  const { events } = load().index;
  const type = (envelope as { type?: unknown } | null)?.type;
  const schemaPath = typeof type === 'string' && type in events.types ? events.types[type] : events.envelope;
  return check(schemaPath, envelope, opts);
}

/** Any one schema of contracts/ by its path there (e.g. `common/error.json`). */
export function validateSchema(schemaPath: string, value: unknown, opts?: ValidateOptions): ContractViolation[] {
  return check(schemaPath, value, opts);
}
