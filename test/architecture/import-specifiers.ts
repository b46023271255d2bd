import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

// What the architecture tests read: every source file below a folder and the specifiers its imports name, from the
// source text: every `import`/`export ... from` and `import('...')`, type-only imports included. A dozen lines of
// parsing keep the checks free of a dependency graph library.

export const ROOT = resolve(import.meta.dirname, '../..');

const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every file below `dir` whose name `names` matches (TypeScript by default), as absolute paths. */
export function sourceFiles(dir: string, names = /\.tsx?$/): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path, names);
    return names.test(name) ? [path] : [];
  });
}

/** The specifiers of a source text's imports and re-exports, in order (`node:fs`, `vitest`, `./x.js`, ...). */
export function importSpecifiers(text: string): string[] {
  return [...text.matchAll(SPECIFIER)].map((m) => (m[1] ?? m[2])!);
}

/** The specifiers of every source file below `dir`, read from disk: absolute path -> specifiers. */
export function readSpecifiers(dir: string, names?: RegExp): Map<string, string[]> {
  return new Map(sourceFiles(dir, names).map((file) => [file, importSpecifiers(readFileSync(file, 'utf8'))]));
}
