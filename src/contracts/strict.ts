// Strict validation: the same schemas with every described object closed, so a property the contract lacks is a
// violation. The files stay open (lenient), which is what a partner's client should be; the sandbox is held to
// the closed form by its own tests.

/** Conditions, not shapes: closing them would change which branch applies. */
const CONDITION_KEYWORDS = new Set(['if', 'then', 'else', 'not']);

type Json = unknown;

/**
 * Adds `unevaluatedProperties: false` to every subschema that lists `properties`, unless it states its own policy
 * (`additionalProperties` or `unevaluatedProperties`): `unevaluatedProperties` sees through `allOf` and `$ref`.
 */
export function closeObjects<T>(schema: T): T {
  return close(schema) as T;
}

function close(node: Json): Json {
  if (Array.isArray(node)) return node.map(close);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = CONDITION_KEYWORDS.has(k) || k === 'const' || k === 'enum' || k === 'examples' ? v : close(v);
  }
  if ('properties' in out && !('additionalProperties' in out) && !('unevaluatedProperties' in out)) {
    out.unevaluatedProperties = false;
  }
  return out;
}
