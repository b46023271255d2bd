import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One JSON Schema file of contracts/, by its path relative to that folder (the key index.json uses). */
export interface SchemaFile {
  path: string;
  schema: Record<string, unknown> & { $id: string };
}

export interface Operation {
  tag: string;
  summary: string;
  security: 'apiKey' | 'adminToken' | 'none';
  idempotent: boolean;
  /**
   * Outside the tenant's in-flight budget, never refused by it nor counted in it (what releases held requests, and
   * the operator API), so a tenant can always let go of what it holds.
   */
  inFlightExempt?: boolean;
  /** Schema path of the request body; null: the request has no body. */
  request: string | null;
  /** false: the body may be left out (the server takes none or `{}`). */
  requestRequired?: boolean;
  /** HTTP status (or "default" for any other error status) -> schema path; null: an empty body. */
  responses: Record<string, string | null>;
  /** false: the request log does not record it (a read of the log itself, or of what is judged from it). */
  recorded?: boolean;
  /** false: injected faults never fall on it (the faults helpers themselves). */
  faultable?: boolean;
  /** The largest body it takes, in bytes (default 1 MiB: a snapshot's import takes more). */
  maxBodyBytes?: number;
  /** The most JSON values (arrays, objects, elements) its body may hold (default 10,000). */
  maxBodyValues?: number;
  /**
   * What a readiness run makes of it: a `keyed-write` it drops and fails and whose Idempotency-Key it checks, a
   * `read` it answers with a 429 once; `not-judged` (the run's own operations) is left out of what it judges.
   * Absent: judged with the rest, never faulted.
   */
  readiness?: 'keyed-write' | 'read' | 'not-judged';
}

/** The paths of the operations whose `readiness` is `judgedAs` (a readiness run's judgement is by path). */
export function pathsJudgedAs(judgedAs: Operation['readiness'], index = readIndex()): ReadonlySet<string> {
  return new Set(
    Object.entries(index.operations)
      .filter(([, op]) => op.readiness === judgedAs)
      .map(([key]) => key.slice(key.indexOf(' ') + 1)),
  );
}

/**
 * The paths (templates as the contract writes them, `/admin/v1/accounts/{id}`) of the operations outside the tenant's
 * in-flight budget: what lets held requests go, and the operator API.
 */
export function inFlightExemptPaths(index = readIndex()): string[] {
  return Object.entries(index.operations)
    .filter(([, op]) => op.inFlightExempt === true)
    .map(([key]) => key.slice(key.indexOf(' ') + 1));
}

/** A cache of the keyed writes of the contracts shipped with this code (they never change while it runs). */
let keyedWritesCache: ReadonlySet<string> | undefined;

/**
 * Whether `METHOD /path` is a keyed write: an operation that honours an Idempotency-Key (`idempotent: true`).
 * Every client of ours (the CLI's tools, the console) sends one on each, as it asks partners to.
 */
export function isKeyedWrite(method: string, path: string): boolean {
  keyedWritesCache ??= new Set(
    Object.entries(readIndex().operations)
      .filter(([, op]) => op.idempotent)
      .map(([key]) => key),
  );
  return keyedWritesCache.has(`${method.toUpperCase()} ${path.split('?')[0]}`);
}

export interface ContractIndex {
  base: string;
  operations: Record<string, Operation>;
  events: { envelope: string; types: Record<string, string> };
}

/** Files of contracts/ that are not schemas. */
const NOT_SCHEMAS = new Set(['index.json', 'openapi.json']);

/**
 * contracts/ sits at the package root; this module runs from src/contracts (vitest, tsx) or dist/src/contracts
 * (compiled), so walk up until it shows.
 */
export function contractsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'contracts', 'index.json');
    if (existsSync(candidate)) return join(dir, 'contracts');
    const parent = dirname(dir);
    if (parent === dir) throw new Error('contracts/index.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

export function readIndex(dir = contractsDir()): ContractIndex {
  return JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8')) as ContractIndex;
}

export function readSchemaFiles(dir = contractsDir()): SchemaFile[] {
  const out: SchemaFile[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.json') && !(d === dir && NOT_SCHEMAS.has(entry.name))) {
        out.push({ path: relative(dir, full).split(sep).join('/'), schema: JSON.parse(readFileSync(full, 'utf8')) });
      }
    }
  };
  walk(dir);
  return out;
}

/** `/admin/v1/accounts/{id}` -> a regular expression matching one path segment per parameter. */
function pathPattern(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

export interface OperationRoute {
  /** `POST /admin/v1/accounts/{id}/keys`, as contracts/index.json names it. */
  key: string;
  method: string;
  pattern: RegExp;
  operation: Operation;
}

/** Every operation of the index as a route a concrete request (`POST /admin/v1/accounts/acct_1/keys`) can match. */
export function operationRoutes(index: ContractIndex): OperationRoute[] {
  return Object.entries(index.operations).map(([key, operation]) => {
    const [method, template] = key.split(' ') as [string, string];
    return { key, method, pattern: pathPattern(template), operation };
  });
}
