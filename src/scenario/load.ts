import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve } from 'node:path';
import { isMap, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { validateScenario } from './schema.js';
import { ScenarioFileError, type Scenario, type Step, type StepBody } from './types.js';

interface RawFile {
  name: string;
  account?: Scenario['account'];
  webhook?: Scenario['webhook'];
  vars?: Record<string, unknown>;
  include?: string[];
  steps: StepBody[];
}

/** Loads a scenario file (YAML or JSON) and its includes, validated, every step carrying its file and line. */
export async function loadScenario(file: string, cwd = process.cwd()): Promise<Scenario> {
  const root = await loadFile(resolve(cwd, file), cwd, []);
  return { file: relative(cwd, resolve(cwd, file)) || file, ...root };
}

async function loadFile(path: string, cwd: string, chain: string[]): Promise<Omit<Scenario, 'file'>> {
  const shown = relative(cwd, path) || path;
  if (chain.includes(path))
    throw new ScenarioFileError(
      shown,
      1,
      `include cycle: ${[...chain, path].map((p) => relative(cwd, p)).join(' -> ')}`,
    );
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ScenarioFileError(shown, 0, `cannot read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const { raw, lineOf } = parseText(shown, text);
  const vars: Record<string, unknown> = {};
  const steps: Step[] = [];
  for (const [i, inc] of (raw.include ?? []).entries()) {
    let included;
    try {
      included = await loadFile(resolve(dirname(path), inc), cwd, [...chain, path]);
    } catch (err) {
      if (err instanceof ScenarioFileError && err.line === 0 && !chain.includes(path) && err.file !== shown) {
        throw new ScenarioFileError(shown, lineOf(['include', i]), `include ${JSON.stringify(inc)}: ${err.detail}`);
      }
      throw err;
    }
    Object.assign(vars, included.vars);
    steps.push(...included.steps);
  }
  Object.assign(vars, raw.vars ?? {});
  raw.steps.forEach((s, i) => steps.push({ ...s, file: shown, line: lineOf(['steps', i]) } as Step));
  return { name: raw.name, account: raw.account, webhook: raw.webhook, vars, steps };
}

/** Parses with a line counter so YAML syntax errors and schema errors both point at a line of the file. */
function parseText(file: string, text: string): { raw: RawFile; lineOf: (path: (string | number)[]) => number } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (doc.errors.length > 0) {
    const [first, ...rest] = doc.errors.map((e) => ({
      line: e.linePos?.[0]?.line ?? lines.linePos(e.pos[0]).line,
      detail: e.message.split('\n')[0]!,
    }));
    throw new ScenarioFileError(file, first!.line, first!.detail, rest);
  }
  const lineOf = (path: (string | number)[]) => nodeLine(doc, lines, path);
  const value = doc.toJS();
  const [first, ...rest] = validateScenario(value).map((p) => ({ line: lineOf(p.path), detail: p.message }));
  if (first) throw new ScenarioFileError(file, first.line, first.detail, rest);
  return { raw: value as RawFile, lineOf };
}

/** The line of the deepest node along `path` that exists (a missing field points at its parent). */
function nodeLine(doc: Document, lines: LineCounter, path: (string | number)[]): number {
  let node: unknown = doc.contents;
  let best = node;
  for (const key of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === key);
      if (!pair) break;
      node = pair.value ?? pair.key;
      best = pair.key ?? node;
      if ((node as Node | null)?.range) best = node;
      // A field's error is best shown on its key's line, which is where the reader looks.
      if (key === path[path.length - 1] && pair.key) best = pair.key;
    } else if (isSeq(node) && typeof key === 'number' && node.items[key]) {
      node = node.items[key];
      best = node;
    } else break;
  }
  const range = (best as Node | null)?.range;
  return range ? lines.linePos(range[0]).line : 1;
}
