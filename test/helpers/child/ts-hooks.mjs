// Module hooks that let a child `node` process run the TypeScript sources directly (no build, no tsx):
// `./x.js` imports resolve to `./x.ts` (or `./x.tsx`, the console's pages) when that file exists, and both are
// transpiled on load with the JSX settings of tsconfig.json.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export async function resolve(specifier, context, next) {
  if (specifier.endsWith('.js') && specifier.startsWith('.') && context.parentURL?.startsWith('file:')) {
    for (const ext of ['.ts', '.tsx']) {
      const url = new URL(specifier.slice(0, -3) + ext, context.parentURL);
      if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true };
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !(url.endsWith('.ts') || url.endsWith('.tsx'))) return next(url, context);
  const path = fileURLToPath(url);
  const { outputText } = ts.transpileModule(await readFile(path, 'utf8'), {
    fileName: path,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      jsx: ts.JsxEmit.ReactJSX,
      jsxImportSource: 'hono/jsx',
    },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
