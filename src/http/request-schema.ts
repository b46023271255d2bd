import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import {
  operationRoutes,
  readIndex,
  readSchemaFiles,
  type ContractIndex,
  type OperationRoute,
} from '../contracts/files.js';
import { invalidField } from '../domain/kernel/errors.js';
import { distance } from './edit-distance.js';

// Request validation from the request schemas of contracts/ (one source). Each schema is compiled once,
// on its first request, and each ajv error is told in the sandbox's words: the field's name, then what it must be. When a
// body breaks several rules, the first field in the schema's own property order wins (the order the spec and the
// handlers read them), after any unknown field of the simulation or operator API, which is named first.

export type Body = Record<string, unknown>;

// A JSON Schema node as read from contracts/: any keyword, any value, walked by name.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Schema = Record<string, any>;

/** Messages of `pattern` and `anyOf` checks, which a schema cannot word (by field label, `[i]` as `[]`). */
const SPECIAL: Record<string, string> = {
  merchantCountry: 'must be an ISO 3166 alpha-2 code',
  txId: 'must be 64 hexadecimal characters',
  fromAddress: 'must be a TRON base58check address',
  'rules[].path': 'must be a full request path such as /v1/card/deposit',
  bin: 'must be 6 to 8 digits',
  status: 'must be an HTTP status (e.g. 400) or a class such as "4xx"',
  path: 'must be a request path starting with /',
  depositAddress: 'must be "auto", null or a TRON base58 address',
  depositFeeRate: 'must be a decimal in [0, 1) with at most 6 places, e.g. "0.02"',
  'fee.deposit': 'must be a decimal rate in [0, 1)',
  'fee.fx': 'must be a decimal rate in [0, 1)',
  'fee.atm': 'must be a decimal rate in [0, 1)',
  'fee.card': 'must be a decimal string, e.g. "100"',
  'limit.spendDaily': 'must be a decimal string, e.g. "100"',
  'limit.minimalDeposit': 'must be a decimal string, e.g. "100"',
  'cards[].availableAmount': 'must be a decimal string with at most 6 decimal places, e.g. "-12.5"',
  'cards[].frozenAmount': 'must be a decimal string with at most 6 decimal places, e.g. "12.5"',
};

/**
 * Cross-field rules of an object, worded (by the object's label with `[i]` as `[]`); `not` by the end of its schema
 * path, when an object has several.
 */
const OBJECT_RULES: Record<string, { anyOf?: string; not?: Record<string, string>; required?: string }> = {
  'rules[]': {
    anyOf: 'needs latencyMs, hold, respond or dropResponse',
    not: {
      'allOf/1/not': 'cannot both respond and drop the response',
      'allOf/2/not': 'cannot both hold and wait a latencyMs (a hold ends when released)',
    },
  },
  'rules[].respond': { required: 'needs httpStatus (400-599) and code' },
};

type NewAjv = typeof import('../contracts/ajv.js').newAjv;

// ajv is some 230 modules: loaded off the start-up path, on the first body to check or when a listening server warms
// its validators, so `serve` answers its first request sooner.
let newAjv: NewAjv | undefined;
let loadingAjv: Promise<void> | undefined;

/** Loads the validators' library once; undefined when it is loaded (a request then checks its body without awaiting). */
export function loadRequestValidators(): Promise<void> | undefined {
  if (newAjv) return undefined;
  return (loadingAjv ??= import('../contracts/ajv.js').then((m) => {
    newAjv = m.newAjv;
  }));
}

/** Cross-field rules of a whole body, each the whole message naming its field (by its schema file under contracts/). */
const BODY_RULES: Record<string, { anyOf?: string; not?: string | Record<string, string> }> = {
  'sandbox/transaction/refund.request.json': {
    anyOf:
      'transactionId is required (a refund of a purchase), or cardId with amount (a refund with no purchase behind it)',
    not: 'transactionId cannot come with cardId or merchant fields: a refund of a purchase is to its card, from its merchant',
  },
};

interface Compiled {
  validate: ValidateFunction;
  schema: Schema;
}

interface Loaded {
  ajv: ReturnType<NewAjv>;
  index: ContractIndex;
  /** Every schema file by its $id, to follow `$ref`s when wording an error. */
  schemasById: Map<string, Schema>;
  /** The operations that take a body. */
  routes: OperationRoute[];
  compiled: Map<string, Compiled>;
}

let loaded: Loaded | undefined;

/**
 * Loads every schema once; each operation's validator is compiled on its first use. Compiling all of them takes about
 * a second, so a server warms them after it listens (warmRequestValidators) instead of before, and a test app only
 * compiles what it calls.
 */
function load(): Loaded {
  if (loaded) return loaded;
  if (!newAjv) throw new Error('request validators used before loadRequestValidators()');
  const index: ContractIndex = readIndex();
  // Formats are annotations here (as JSON Schema 2020-12 has them): a webhook URL gets the URL policy's own,
  // more telling, message from the handler.
  const ajv = newAjv({ allErrors: true, validateFormats: false });
  const schemasById = new Map<string, Schema>();
  for (const f of readSchemaFiles()) {
    ajv.addSchema(f.schema);
    schemasById.set(f.schema.$id, f.schema);
  }
  const routes = operationRoutes(index).filter((r) => r.operation.request !== null);
  loaded = { ajv, index, schemasById, routes, compiled: new Map() };
  return loaded;
}

function compiledFor(operation: string): Compiled {
  const l = load();
  let c = l.compiled.get(operation);
  if (c) return c;
  const request = l.index.operations[operation]?.request;
  if (!request) throw new Error(`no request schema for ${operation}`);
  const id = l.index.base + request;
  c = { validate: l.ajv.getSchema(id)!, schema: l.schemasById.get(id)! };
  l.compiled.set(operation, c);
  return c;
}

/** Follows `$ref`s (relative to the file they are in) to the schema they name. */
function resolve(schema: Schema, fileId: string): { schema: Schema; fileId: string } {
  let s = schema;
  let id = fileId;
  while (typeof s.$ref === 'string') {
    const target = new URL(s.$ref, id).href;
    const file = load().schemasById.get(target.split('#')[0]!);
    if (!file) break;
    id = file.$id;
    s = file;
  }
  return { schema: s, fileId: id };
}

/** The schema of the value at `path` (property names and array indexes) inside `root`. */
function schemaAt(root: Compiled, path: string[]): Schema | undefined {
  let node = resolve(root.schema, root.schema.$id);
  for (const part of path) {
    const s = node.schema;
    const next = /^\d+$/.test(part) && s.items ? s.items : s.properties?.[part];
    if (next === undefined) return undefined;
    node = resolve(next, node.fileId);
  }
  return node.schema;
}

const parts = (pointer: string) =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));

function label(path: string[]): string {
  return path.reduce((out, p) => (/^\d+$/.test(p) ? `${out}[${p}]` : out ? `${out}.${p}` : p), '');
}

const generic = (l: string) => l.replace(/\[\d+\]/g, '[]');

/** An amount: a number with a decimal step (multipleOf), as the amount schemas of contracts/common have it. */
const isAmount = (s: Schema) => s.type === 'number' && typeof s.multipleOf === 'number';

function places(step: number): number {
  return Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
}

function between(s: Schema): string {
  return `between ${s.minimum ?? 0} and ${s.maximum ?? Number.MAX_SAFE_INTEGER}`;
}

/** What a field must be, worded as the sandbox has always worded it. */
function mustBe(s: Schema, fieldLabel: string, value: unknown, required: boolean, keyword: string): string {
  // An enum words itself; a special message is for what a schema cannot word (a pattern, a choice of types).
  const special = Array.isArray(s.enum) ? undefined : SPECIAL[generic(fieldLabel)];
  if (value === null && required) return `${fieldLabel} is required`;
  if (isAmount(s)) {
    if (typeof value !== 'number') return `${fieldLabel} must be a JSON number${value === null ? ', or left out' : ''}`;
    const lowest =
      s.exclusiveMinimum === undefined ? `at least ${s.minimum ?? 0}` : `greater than ${s.exclusiveMinimum}`;
    return `${fieldLabel} must be a number ${lowest}, at most ${s.maximum}, with at most ${places(s.multipleOf)} decimal places`;
  }
  if (value === null && (s.type === 'string' || s.pattern !== undefined))
    return `${fieldLabel} must be a string, or left out`;
  if (special) return `${fieldLabel} ${special}`;
  if (Array.isArray(s.enum)) return `${fieldLabel} must be one of ${s.enum.join(', ')}`;
  switch (s.type) {
    case 'string':
      if (typeof value !== 'string') return `${fieldLabel} must be a string${value === null ? ', or left out' : ''}`;
      if (keyword === 'minLength' && value.length === 0) return `${fieldLabel} must not be empty`;
      if (keyword === 'maxLength') return `${fieldLabel} must be at most ${s.maxLength} characters`;
      return special ? `${fieldLabel} ${special}` : `${fieldLabel} must match ${s.pattern}`;
    case 'integer':
      return `${fieldLabel} must be an integer ${between(s)}`;
    case 'number':
      return `${fieldLabel} must be a number ${between(s)}`;
    case 'boolean':
      return `${fieldLabel} must be a boolean`;
    case 'object':
      return `${fieldLabel} must be an object`;
    case 'array':
      if (!Array.isArray(value)) return `${fieldLabel} must be an array`;
      if (keyword === 'minItems') return `${fieldLabel} must hold at least ${s.minItems} entries`;
      if (keyword === 'uniqueItems') return `${fieldLabel} must not name the same entry twice`;
      return `${fieldLabel} must hold at most ${s.maxItems} entries`;
  }
  if (special) return `${fieldLabel} ${special}`;
  // A choice of types (a snapshot's webhook: an object, or null when none was set), worded as the choice.
  if (Array.isArray(s.anyOf) && s.anyOf.every((b: Schema) => typeof b.type === 'string')) {
    return `${fieldLabel} must be ${s.anyOf.map((b: Schema) => TYPE_WORDS[b.type as string] ?? b.type).join(' or ')}`;
  }
  return `${fieldLabel} is invalid`;
}

const TYPE_WORDS: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  null: 'null',
};

/** `advanceSecond: unknown field (did you mean advanceSeconds?)`, or the fields the object takes. */
function unknownField(c: Compiled, e: ErrorObject): string {
  const path = parts(e.instancePath);
  const field = String((e.params as { additionalProperty: string }).additionalProperty);
  const known = Object.keys(schemaAt(c, path)?.properties ?? {});
  const where = label([...path, field]);
  const near = known
    .map((k) => ({ k, d: distance(field.toLowerCase(), k.toLowerCase()) }))
    .filter(({ k, d }) => d <= Math.max(1, Math.floor(k.length / 3)))
    .sort((a, b) => a.d - b.d)[0];
  if (near) return `${where}: unknown field (did you mean ${near.k}?)`;
  return `${where}: unknown field (${known.length ? `it takes ${known.join(', ')}` : 'it takes no field'})`;
}

/** The one message for a body's errors: the first field (schema order) with a problem, its first problem. */
function explain(c: Compiled, body: Body, errors: ErrorObject[]): string {
  const root = resolve(c.schema, c.schema.$id).schema;
  const unknown = errors.find((e) => e.keyword === 'additionalProperties');
  if (unknown) return unknownField(c, unknown);
  const order = Object.keys(root.properties ?? {});
  const fieldOf = (e: ErrorObject) => {
    const p = parts(e.instancePath);
    if (p.length > 0) return p;
    const missing = (e.params as { missingProperty?: string }).missingProperty;
    return missing === undefined ? [] : [missing];
  };
  // Deepest-first within a field would name a nested field before its object's own rule; the object's rule
  // (a missing property, a cross-field rule) is what the handlers checked first, so shallow errors lead.
  const rank = (e: ErrorObject) => {
    const path = fieldOf(e);
    const top = path[0] === undefined ? -1 : order.indexOf(path[0]);
    const kind = e.keyword === 'required' ? 0 : e.keyword === 'type' ? 1 : 2;
    return [
      top === -1 ? order.length : top,
      ...path.slice(1).map((p) => (/^\d+$/.test(p) ? Number(p) : 0)),
      path.length,
      kind,
    ];
  };
  const compare = (a: ErrorObject, b: ErrorObject) => {
    const ra = rank(a);
    const rb = rank(b);
    for (let i = 0; i < Math.max(ra.length, rb.length); i++) {
      const d = (ra[i] ?? -1) - (rb[i] ?? -1);
      if (d !== 0) return d;
    }
    return 0;
  };
  // Errors inside an anyOf / not branch are the branch's, not the body's: only the combinator's own error counts.
  const inBranch = (e: ErrorObject) => /\/(anyOf|oneOf|not)\//.test(e.schemaPath);
  const own = errors.filter((e) => !inBranch(e));
  const first = [...(own.length ? own : errors)].sort(compare)[0]!;
  const path = parts(first.instancePath);
  const objectLabel = label(path);
  if (first.keyword === 'required' || first.keyword === 'dependentRequired') {
    const missing = (first.params as { missingProperty: string }).missingProperty;
    const rule = first.keyword === 'required' ? OBJECT_RULES[generic(objectLabel)]?.required : undefined;
    if (rule) return `${objectLabel} ${rule}`;
    return `${label([...path, missing])} is required`;
  }
  const rules =
    path.length === 0 ? BODY_RULES[c.schema.$id.slice(load().index.base.length)] : OBJECT_RULES[generic(objectLabel)];
  const worded = (rule: string) => (path.length === 0 ? rule : `${objectLabel} ${rule}`);
  if (first.keyword === 'anyOf' && rules?.anyOf) return worded(rules.anyOf);
  if (first.keyword === 'not' && rules?.not) {
    const rule =
      typeof rules.not === 'string'
        ? rules.not
        : Object.entries(rules.not).find(([end]) => first.schemaPath.endsWith(end))?.[1];
    if (rule) return worded(rule);
  }
  const s = schemaAt(c, path) ?? {};
  const parent = schemaAt(c, path.slice(0, -1));
  const required = Array.isArray(parent?.required) && parent.required.includes(path[path.length - 1]);
  const value = path.reduce<unknown>((v, p) => (v as Record<string, unknown> | undefined)?.[p], body);
  return mustBe(s, objectLabel, value, required, first.keyword);
}

/**
 * A document's `format` and `version` (each the one value of its schema's enum), when given and not this server's, are named before
 * any other problem: a document of another kind or version is told so, not picked apart by fields its version never
 * had (one without them is judged as any body: an unknown field first, then the missing ones).
 */
function documentKindFirst(c: Compiled, body: Body): void {
  const properties = resolve(c.schema, c.schema.$id).schema.properties ?? {};
  for (const field of ['format', 'version']) {
    // The one value its schema allows (an enum of one: Postman and other importers refuse `const` in a request).
    const allowed = (properties[field] as Schema | undefined)?.enum as unknown[] | undefined;
    const expected = allowed?.length === 1 ? allowed[0] : undefined;
    if (expected === undefined || !(field in body) || body[field] === expected) continue;
    throw invalidField(
      field === 'version'
        ? `version must be ${JSON.stringify(expected)}: this is a document of version ${JSON.stringify(body[field])}, ` +
            'and this server reads its own version only (export it again from a server of this version)'
        : `format must be ${JSON.stringify(expected)}`,
    );
  }
}

/**
 * The body, checked against the request schema of `operation` (`POST /v1/card/create`); a 400 naming the field.
 */
export function validateBody(operation: string, body: Body): Body {
  const c = compiledFor(operation);
  if (!c.validate(body)) {
    documentKindFirst(c, body);
    throw invalidField(explain(c, body, c.validate.errors ?? []));
  }
  return body;
}

/** An array longer than this, at the top of a body, is checked in slices (a snapshot's sections). */
const LONG_ARRAY = 64;
/** Items checked between two looks at the time. */
const ITEMS_PER_LOOK = 32;
/** How long a slice of checking runs before `pause()` (the tenant's turn) is awaited. */
const CHECK_SLICE_MS = 4;

/**
 * `validateBody` for a body whose top-level arrays are long (a snapshot: 38 ms for 3.7 MB in one go): the body with
 * each long array cut to its first item, then every other item against the array's item schema, `pause()` awaited
 * between slices. The same rules, and the same message: every problem found goes to the one wording of them.
 */
export async function validateBodyInSlices(operation: string, body: Body, pause: () => Promise<void>): Promise<Body> {
  const c = compiledFor(operation);
  const root = resolve(c.schema, c.schema.$id).schema;
  const long = Object.keys(root.properties ?? {}).filter(
    (k) => Array.isArray(body[k]) && (body[k] as unknown[]).length > LONG_ARRAY && root.properties[k].items,
  );
  if (long.length === 0) return validateBody(operation, body);
  const errors: ErrorObject[] = [];
  const skeleton = { ...body, ...Object.fromEntries(long.map((k) => [k, (body[k] as unknown[]).slice(0, 1)])) };
  if (!c.validate(skeleton)) errors.push(...(c.validate.errors ?? []));
  let endMs = performance.now() + CHECK_SLICE_MS;
  for (const key of long) {
    const items = body[key] as unknown[];
    const max = root.properties[key].maxItems as number | undefined;
    if (max !== undefined && items.length > max) {
      errors.push({
        instancePath: `/${key}`,
        schemaPath: `#/properties/${key}/maxItems`,
        keyword: 'maxItems',
        params: { limit: max },
      } as ErrorObject);
      continue;
    }
    const validateItem = itemValidator(c, key);
    for (let i = 1; i < items.length; i++) {
      if (!validateItem(items[i])) {
        // Worded as if the whole body had been checked: the item's problems at their place in it.
        for (const e of validateItem.errors ?? []) {
          errors.push({
            ...e,
            instancePath: `/${key}/${i}${e.instancePath}`,
            schemaPath: e.schemaPath.replace(/^#/, `#/properties/${key}/items`),
          });
        }
        break;
      }
      if (i % ITEMS_PER_LOOK === 0 && performance.now() > endMs) {
        await pause();
        endMs = performance.now() + CHECK_SLICE_MS;
      }
    }
  }
  if (errors.length > 0) {
    documentKindFirst(c, body);
    throw invalidField(explain(c, body, errors));
  }
  return body;
}

/** The compiled item schema of a top-level array property of an operation's body. */
function itemValidator(c: Compiled, key: string): ValidateFunction {
  const l = load();
  const id = `${c.schema.$id}#/properties/${key}/items`;
  let v = l.compiled.get(id);
  if (!v) l.compiled.set(id, (v = { validate: l.ajv.getSchema(id)!, schema: c.schema }));
  return v.validate;
}

/**
 * A whole document checked against a schema file of contracts/ (`sandbox/snapshot/snapshot.json`), worded as a body
 * is: a 400 naming the first field with a problem.
 */
export async function validateDocument(file: string, value: Body): Promise<Body> {
  const loading = loadRequestValidators();
  if (loading) await loading;
  const l = load();
  const id = l.index.base + file;
  let c = l.compiled.get(id);
  if (!c) {
    const validate = l.ajv.getSchema(id);
    if (!validate) throw new Error(`no schema ${file} in contracts/`);
    l.compiled.set(id, (c = { validate, schema: l.schemasById.get(id)! }));
  }
  if (!c.validate(value)) {
    documentKindFirst(c, value);
    throw invalidField(explain(c, value, c.validate.errors ?? []));
  }
  return value;
}

/** Compiles every request validator, one per turn of the event loop, so no request waits behind all of them. */
export function warmRequestValidators(): void {
  // Unref'd: a server told to stop exits at once instead of finishing the warm-up first.
  const next = (i: number) => {
    const route = load().routes[i];
    if (route === undefined) return;
    compiledFor(route.key);
    setTimeout(next, 0, i + 1).unref();
  };
  void (loadRequestValidators() ?? Promise.resolve()).then(() => setTimeout(next, 0, 0).unref());
}
