import { Ajv2020 as Ajv, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCHEMA_FILE = join('contracts', 'scenario.schema.json');
const STEP_KINDS = ['request', 'sandbox', 'admin', 'advance', 'expectWebhook', 'receiver', 'parallel'] as const;
/** The field of a step kind that holds steps of its own. */
const NESTED: Partial<Record<(typeof STEP_KINDS)[number], string>> = { parallel: 'parallel', request: 'whileHeld' };
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
    // Every error, each with the schema it broke (verbose): an unknown field is told with the fields it could be.
    const ajv = new Ajv({ allErrors: true, strict: true, verbose: true });
    ajv.addSchema(JSON.parse(readFileSync(schemaPath(), 'utf8')), 'scenario');
    compiled = { ajv, whole: ajv.getSchema('scenario')! };
  }
  return compiled;
}

/**
 * Every problem of a parsed file, in document order. A step's `oneOf` failure says little, so each step is validated
 * against the definition its leading key names, which yields errors about the fields that are actually wrong; the
 * document's own fields are validated apart from its steps.
 */
export function validateScenario(doc: unknown): SchemaProblem[] {
  const { ajv, whole } = schema();
  if (whole(doc)) return [];
  // The document's own fields here; what lies inside a step is told by its own definition below.
  const inStep = (e: ErrorObject) =>
    /^\/steps\/\d+/.test(e.instancePath) || (e.instancePath === '/steps' && e.keyword !== 'type');
  const problems = told(
    (whole.errors ?? []).filter((e) => !inStep(e)),
    [],
  );
  const steps = (doc as { steps?: unknown }).steps;
  if (Array.isArray(steps)) steps.forEach((step, i) => problems.push(...stepProblems(ajv, step, ['steps', i])));
  return dedupe(problems);
}

function stepProblems(ajv: Ajv, step: unknown, at: (string | number)[]): SchemaProblem[] {
  if (typeof step !== 'object' || step === null || Array.isArray(step)) {
    return [{ path: at, message: 'a step must be an object' }];
  }
  const kinds = STEP_KINDS.filter((k) => k in step);
  if (kinds.length !== 1) {
    if (kinds.length > 1) return [{ path: at, message: `a step has one kind, found ${kinds.join(' and ')}` }];
    const near = Object.keys(step)
      .map((k) => [k, suggestion(k, STEP_KINDS)] as const)
      .find(([, s]) => s);
    return [
      {
        path: near ? [...at, near[0]] : at,
        message:
          `a step needs exactly one of: ${STEP_KINDS.join(', ')}` +
          (near ? `; unknown key ${JSON.stringify(near[0])}: did you mean ${JSON.stringify(near[1])}?` : ''),
      },
    ];
  }
  const validate = ajv.getSchema(`scenario#/$defs/${DEFINITION[kinds[0]]}`)!;
  if (validate(step)) return [];
  // Steps inside a step (parallel's, a request's whileHeld) are told by their own definitions, as a file's are.
  const list = NESTED[kinds[0]];
  const errors = (validate.errors ?? []).filter((err) => {
    const where = pointer(err.instancePath);
    return !(list !== undefined && where[0] === list && typeof where[1] === 'number');
  });
  const out = told(errors, at);
  const inner = list === undefined ? undefined : (step as Record<string, unknown>)[list];
  if (list !== undefined && Array.isArray(inner)) {
    inner.forEach((s, i) => out.push(...stepProblems(ajv, s, [...at, list, i])));
  }
  return out;
}

/**
 * The problems Ajv's errors tell, one per thing to fix: a value that fits none of its alternatives (`anyOf`, `oneOf`)
 * is one problem naming each, and a missing field that an unknown field next to it misspells is told by that one.
 */
function told(errors: readonly ErrorObject[], at: (string | number)[]): SchemaProblem[] {
  const choices = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const branchOf = (e: ErrorObject) =>
    choices.find((c) => c.instancePath === e.instancePath && e.schemaPath.startsWith(`${c.schemaPath}/`));
  const misspelt = new Set(
    errors
      .filter((e) => e.keyword === 'additionalProperties')
      .map((e) => {
        const near = suggestion(String(e.params.additionalProperty), knownFields(e.parentSchema));
        return near === undefined ? '' : `${e.instancePath}/${near}`;
      }),
  );
  const out: SchemaProblem[] = [];
  for (const e of errors) {
    if (e.keyword === 'if' || branchOf(e)) continue;
    if (e.keyword === 'required' && misspelt.has(`${e.instancePath}/${String(e.params.missingProperty)}`)) continue;
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') {
      const branches = errors.filter((b) => branchOf(b) === e).map((b) => describe(b, false));
      if (branches.length === 0) continue;
      const where = e.instancePath ? `${e.instancePath.split('/').pop()} ` : '';
      out.push({ path: [...at, ...errorPath(e)], message: `${where}${branches.join(', or ')}` });
      continue;
    }
    out.push({ path: [...at, ...errorPath(e)], message: describe(e) });
  }
  return out;
}

function dedupe(problems: SchemaProblem[]): SchemaProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = JSON.stringify(p);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
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

/** The fields an object of this schema may have (its own and those of the definitions it includes). */
function knownFields(schema: unknown): string[] {
  const s = schema as { properties?: Record<string, unknown>; allOf?: { $ref?: string }[] } | undefined;
  const own = Object.keys(s?.properties ?? {});
  const included = (s?.allOf ?? []).flatMap((part) => {
    const ref = part.$ref?.startsWith('#/$defs/') ? part.$ref.slice('#/$defs/'.length) : undefined;
    const def = ref && compiled?.ajv.getSchema(`scenario#/$defs/${ref}`)?.schema;
    return def ? knownFields(def) : [];
  });
  return [...new Set([...own, ...included])];
}

/**
 * A known name one edit away (a letter added, dropped, changed, or two neighbours swapped), or undefined: enough to
 * catch a typo without guessing at a different word.
 */
function suggestion(word: string, known: readonly string[]): string | undefined {
  return (
    known.find((k) => k !== word && editDistance(word.toLowerCase(), k.toLowerCase()) === 1) ??
    known.find((k) => k !== word && k.toLowerCase() === word.toLowerCase())
  );
}

/** Optimal string alignment distance (Levenshtein with adjacent transpositions). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** What an error says is wrong; `named`: starting with the field it is about (`amount must ...`). */
function describe(e: ErrorObject, named = true): string {
  const where = named && e.instancePath ? `${e.instancePath.split('/').pop()} ` : '';
  if (e.keyword === 'additionalProperties') {
    const field = String(e.params.additionalProperty);
    const near = suggestion(field, knownFields(e.parentSchema));
    return `unknown field ${JSON.stringify(field)}${near ? `: did you mean ${JSON.stringify(near)}?` : ''}`;
  }
  if (e.keyword === 'required') return `missing field ${JSON.stringify(e.params.missingProperty)}`;
  if (e.keyword === 'pattern') return `${where}must match ${e.params.pattern}`;
  if (e.keyword === 'enum') return `${where}must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
  return `${where}${e.message ?? 'is invalid'}`;
}
