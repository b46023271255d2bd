import { contractFor } from '../contracts/registry.js';
import { readIndex, readSchemaFiles } from '../contracts/files.js';

// Where a contract fixes the values a field may take (`enum`, `const`): there, a value the replay answered
// differently is a divergence, not a value difference (a new card status, a changed currency). Read from the JSON
// Schemas in contracts/, following `$ref`, and every branch of `allOf` / `anyOf` / `oneOf`.

type Schema = Record<string, unknown>;

let byId: Map<string, Schema> | undefined;
let base = '';

function schemas(): Map<string, Schema> {
  if (byId) return byId;
  base = readIndex().base;
  byId = new Map(readSchemaFiles().map((f) => [f.schema.$id, f.schema as Schema]));
  return byId;
}

/** The schema a `$ref` names, with the id its own relative references resolve against. */
function resolveRef(ref: string, from: string): { schema: Schema; id: string } | undefined {
  const url = new URL(ref, from);
  const [id, fragment] = url.href.split('#') as [string, string | undefined];
  let node: unknown = schemas().get(id);
  for (const part of (fragment ?? '').split('/').slice(1)) {
    node = (node as Record<string, unknown> | undefined)?.[
      decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~')
    ];
  }
  return node && typeof node === 'object' ? { schema: node as Schema, id } : undefined;
}

const MAX_DEPTH = 64;

/** Adds to `out` every value an enum or const allows at `tokens[i...]` below `schema`. */
function collect(schema: unknown, id: string, tokens: string[], i: number, out: unknown[], depth: number): void {
  if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return;
  const s = schema as Schema;
  if (typeof s.$ref === 'string') {
    const target = resolveRef(s.$ref, id);
    if (target) collect(target.schema, target.id, tokens, i, out, depth + 1);
  }
  if (typeof s.$id === 'string') id = s.$id;
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches)) for (const b of branches) collect(b, id, tokens, i, out, depth + 1);
  }
  if (i === tokens.length) {
    if (Array.isArray(s.enum)) out.push(...s.enum);
    if ('const' in s) out.push(s.const);
    return;
  }
  const token = tokens[i]!;
  const properties = s.properties as Record<string, unknown> | undefined;
  if (properties && Object.hasOwn(properties, token)) collect(properties[token], id, tokens, i + 1, out, depth + 1);
  else if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    collect(s.additionalProperties, id, tokens, i + 1, out, depth + 1);
  }
  if (/^\d+$/.test(token)) {
    const prefix = s.prefixItems as unknown[] | undefined;
    const index = Number(token);
    if (Array.isArray(prefix) && index < prefix.length) collect(prefix[index], id, tokens, i + 1, out, depth + 1);
    else if (s.items && typeof s.items === 'object') collect(s.items, id, tokens, i + 1, out, depth + 1);
  }
}

/** The response schema's path for this answer, as contracts/index.json maps statuses (an error under `default`). */
function responseSchemaId(method: string, path: string, status: number): string | undefined {
  const op = contractFor(method, path)?.operation;
  if (!op) return undefined;
  const key = String(status);
  const schemaPath = key in op.responses ? op.responses[key] : status >= 400 ? op.responses.default : undefined;
  if (typeof schemaPath !== 'string') return undefined;
  schemas();
  return base + schemaPath;
}

/**
 * The values the contract allows at a JSON pointer of this answer, when it fixes them (an enum or a const);
 * undefined where any value of the field's type is allowed.
 */
export function enumValuesAt(method: string, path: string, status: number, pointer: string): unknown[] | undefined {
  const id = responseSchemaId(method, path, status);
  const schema = id && schemas().get(id);
  if (!id || !schema) return undefined;
  const tokens =
    pointer === ''
      ? []
      : pointer
          .split('/')
          .slice(1)
          .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  const out: unknown[] = [];
  collect(schema, id, tokens, 0, out, 0);
  return out.length > 0 ? out : undefined;
}
