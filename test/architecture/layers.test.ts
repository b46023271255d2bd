import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The house's shape as a test (STYLE.md rule 11): cli -> http (app, http/, api/, sandbox/, admin/, console/) ->
// domain -> store, and no import circle. The import specifiers are read from the source text: every relative
// `import`/`export ... from` and `import('...')`, type-only imports included (a circle of types is still a
// circle a reader has to hold in mind). A dozen lines of parsing keep the check free of a dependency graph library.

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** src-relative file -> the src-relative files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const targets: string[] = [];
    for (const m of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const spec = (m[1] ?? m[2])!;
      if (!spec.startsWith('.')) continue;
      const base = resolve(dirname(file), spec).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => existsSync(p));
      if (target) targets.push(relative(SRC, target));
    }
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** What each lower layer may import from src (anything from node: or a package is fine). */
// The domain may also use the redaction (pure text functions, no I/O): the request log it keeps must be redacted
// exactly as the logs are, and one mechanism is the point.
const MAY_IMPORT: Record<string, RegExp> = {
  'domain/': /^(domain|store|redaction)\//,
  'store/': /^store\//,
  'redaction/': /^redaction\//,
  'request-log/': /^(request-log|domain|store|redaction)\//,
};

function layerViolations(graph: Map<string, string[]>): string[] {
  return [...graph].flatMap(([file, targets]) => {
    const layer = Object.keys(MAY_IMPORT).find((prefix) => file.startsWith(prefix));
    if (!layer) return [];
    return targets.filter((t) => !MAY_IMPORT[layer]!.test(t)).map((t) => `${file} imports ${t}`);
  });
}

/** Strongly connected components of more than one file (Tarjan); the numbered migrations and their index aside. */
function circles(graph: Map<string, string[]>): string[][] {
  const aside = (f: string) => f.startsWith('store/migrations/');
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (aside(v) && aside(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('layers: cli -> http -> domain -> store', () => {
  const graph = importGraph();

  it('reads the whole source tree', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('domain/cards.ts')).toContain('store/db.ts');
  });

  it('src/domain imports only the domain, the store and the redaction rules; src/store only the store', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('src/ has no import circle (the migrations index aside)', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('the checks bite: a domain file importing http, and a two-file circle, are both found', () => {
    const bad = new Map([
      ['domain/a.ts', ['http/errors.ts', 'domain/b.ts']],
      ['domain/b.ts', ['domain/a.ts']],
      ['store/c.ts', ['domain/a.ts']],
    ]);
    expect(layerViolations(bad)).toEqual(['domain/a.ts imports http/errors.ts', 'store/c.ts imports domain/a.ts']);
    expect(circles(bad)).toEqual([['domain/a.ts', 'domain/b.ts']]);
  });
});
