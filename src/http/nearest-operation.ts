import { readIndex } from '../contracts/files.js';
import { distance } from './edit-distance.js';

// The Sandbox-Hint of a 404 (no route): the operation the caller most likely meant, from contracts/index.json (the
// routes are built from it, so it lists exactly what answers). It names operations of the contract only, never
// the caller's own path. Bounded: an anonymous flood of odd paths costs a few exact lookups each, and a near-miss
// under an API prefix one edit-distance pass over that API's operations, on at most MAX_PATH characters.

const PREFIXES = ['/v1', '/sandbox/v1', '/admin/v1'] as const;
const MAX_PATH = 100;

interface Op {
  method: string;
  path: string;
  pattern: RegExp;
}

let ops: Op[] | undefined;

function operations(): Op[] {
  ops ??= Object.keys(readIndex().operations).map((key) => {
    const [method, path] = key.split(' ') as [string, string];
    const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+').replace(/\//g, '\\/')}$`, 'i');
    return { method, path, pattern };
  });
  return ops;
}

const name = (op: Op) => `${op.method} ${op.path}`;
const prefixOf = (path: string) =>
  [...PREFIXES].sort((a, b) => b.length - a.length).find((p) => path === p || path.startsWith(`${p}/`));

/** What the caller of an unknown route most likely meant, or where the operations are listed. */
export function notFoundHint(method: string, rawPath: string): string {
  const path = (rawPath.length > 1 ? rawPath.replace(/\/+$/, '') : rawPath).slice(0, MAX_PATH * 2);
  const all = operations();
  // The path exists, for another method.
  const sameRoute = all.filter((op) => op.pattern.test(path));
  if (sameRoute.length > 0 && !sameRoute.some((op) => op.method === method.toUpperCase())) {
    const names = sameRoute.map(name);
    const named = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
    return `This path answers ${named} only${path.startsWith('/v1/') ? ' (every call of /v1 but the webhook configuration is a POST)' : ''}.`;
  }
  // The operation exists under another API prefix, or without one.
  const prefix = prefixOf(path);
  const tail = prefix ? path.slice(prefix.length) : path;
  for (const other of PREFIXES) {
    if (other === prefix) continue;
    const found = all.find((op) => op.pattern.test(other + tail) && op.method === method.toUpperCase());
    if (found)
      return `No operation here; did you mean ${name(found)}? /v1 is the partner API, /sandbox/v1 the simulation API, /admin/v1 the operator API.`;
  }
  // A near miss within its API: the operation at the fewest edits.
  if (prefix && path.length <= MAX_PATH) {
    const limit = Math.max(2, Math.floor(path.length / 5));
    let best: { op: Op; d: number } | undefined;
    for (const op of all) {
      if (prefixOf(op.path) !== prefix) continue;
      const d = distance(path.toLowerCase(), op.path.toLowerCase(), Math.min(limit, best?.d ?? limit));
      if (d <= limit && (!best || d < best.d || (d === best.d && op.method === method.toUpperCase()))) best = { op, d };
    }
    if (best) return `No operation here; the nearest is ${name(best.op)}.`;
  }
  return 'No operation here: this server answers /v1 (the partner API), /sandbox/v1 (simulation) and /admin/v1 (operator); every operation is listed at /docs and /openapi.json.';
}
