import { Ajv2020 as Ajv, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCHEMA_FILE = join('contracts', 'scenario.schema.json');
const STEP_KINDS = ['request', 'sandbox', 'admin', 'advance', 'expectWebhook', 'receiver', 'parallel'] as const;
const DEFINITION: Record<(typeof STEP_KINDS)[number], string> = {
  request: 'requestStep',
  sandbox: 'sandboxStep',
  admin: 'adminStep',
  advance: 'advanceStep',
  expectWebhook: 'webhookStep',
  receiver: 'receiverStep',
  parallel: 'parallelStep',
};

/** The published schema, found from src/ (tests, tsx) and from dist/src/ (the built CLI) alike. */
function schemaPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, SCHEMA_FILE))) return join(dir, SCHEMA_FILE);
    dir = dirname(dir);
  }
  throw new Error(`cannot find ${SCHEMA_FILE}`);
}

export interface SchemaProblem {
  /** JSON pointer segments into the document. */
  path: (string | number)[];
  message: string;
}

let compiled: { ajv: Ajv; whole: ValidateFunction } | undefined;

function schema() {
  if (!compiled) {
    const ajv = new Ajv({ allErrors: false, strict: true });
    ajv.addSchema(JSON.parse(readFileSync(schemaPath(), 'utf8')), 'scenario');
    compiled = { ajv, whole: ajv.getSchema('scenario')! };
  }
  return compiled;
}

/**
 * Validates a parsed file. A step's `oneOf` failure says little, so a bad step is validated again against the
 * definition its leading key names, which yields an error about the field that is actually wrong.
 */
export function validateScenario(doc: unknown): SchemaProblem | undefined {
  const { ajv, whole } = schema();
  if (whole(doc)) return undefined;
  const first = whole.errors![0];
  const path = errorPath(first);
  if (path[0] === 'steps' && typeof path[1] === 'number') {
    const step = (doc as { steps: unknown[] }).steps[path[1]];
    return stepProblem(ajv, step, path.slice(0, 2)) ?? { path, message: describe(first) };
  }
  return { path, message: describe(first) };
}

function stepProblem(ajv: Ajv, step: unknown, at: (string | number)[]): SchemaProblem | undefined {
  if (typeof step !== 'object' || step === null || Array.isArray(step)) {
    return { path: at, message: 'a step must be an object' };
  }
  const kinds = STEP_KINDS.filter((k) => k in step);
  if (kinds.length !== 1) {
    return {
      path: at,
      message:
        kinds.length === 0
          ? `a step needs exactly one of: ${STEP_KINDS.join(', ')}`
          : `a step has one kind, found ${kinds.join(' and ')}`,
    };
  }
  const validate = ajv.getSchema(`scenario#/$defs/${DEFINITION[kinds[0]]}`)!;
  if (validate(step)) return undefined;
  const err = validate.errors![0];
  if (kinds[0] === 'parallel' && err.instancePath.startsWith('/parallel/')) {
    const inner = pointer(err.instancePath).slice(0, 2);
    const sub = stepProblem(ajv, (step as { parallel: unknown[] }).parallel[inner[1] as number], []);
    if (sub) return { path: [...at, ...inner, ...sub.path], message: sub.message };
  }
  return { path: [...at, ...errorPath(err)], message: describe(err) };
}

/** Where the error is; an unknown field points at that field, not at the object holding it. */
function errorPath(e: ErrorObject): (string | number)[] {
  const path = pointer(e.instancePath);
  if (e.keyword === 'additionalProperties') path.push(String(e.params.additionalProperty));
  return path;
}

function pointer(p: string): (string | number)[] {
  if (!p) return [];
  return p
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function describe(e: ErrorObject): string {
  const where = e.instancePath ? `${e.instancePath.split('/').pop()} ` : '';
  if (e.keyword === 'additionalProperties') return `unknown field ${JSON.stringify(e.params.additionalProperty)}`;
  if (e.keyword === 'required') return `missing field ${JSON.stringify(e.params.missingProperty)}`;
  if (e.keyword === 'pattern') return `${where}must match ${e.params.pattern}`;
  if (e.keyword === 'enum') return `${where}must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
  return `${where}${e.message ?? 'is invalid'}`;
}
