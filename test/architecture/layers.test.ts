import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, readSpecifiers, sourceFiles } from './import-specifiers.js';

// The house's shape as a test: a table of layers (docs/development.md, "Layers"), what each may import, and no
// import circle. The import specifiers are read from the source text (./import-specifiers.ts), type-only imports
// included (a circle of types is still a circle a reader has to hold in mind).

const SRC = join(ROOT, 'src');

/** src-relative file -> the src-relative files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [file, specifiers] of readSpecifiers(SRC)) {
    const targets: string[] = [];
    for (const spec of specifiers) {
      if (!spec.startsWith('.')) continue;
      const base = resolve(dirname(file), spec).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((p) => existsSync(p));
      if (target) targets.push(relative(SRC, target));
    }
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** src-relative file -> its source text. */
function sourceTexts(): Map<string, string> {
  return new Map(sourceFiles(SRC).map((file) => [relative(SRC, file), readFileSync(file, 'utf8')]));
}

// SQL has one home: src/store, one file of SQL per aggregate. No other file talks to the database itself: no `sql(`
// (the store's cache of prepared statements), no `.prepare(` or `.pragma(`, and no `.exec(` on a database handle
// (a regular expression's `.exec(` is not SQL). The domain calls the store's functions inside the transaction its
// runner opened (`db.transaction(...)` stays with the runners). No exception today: the bootstrap marker and the
// shutdown checkpoint are store functions too.
const SQL_CALL = /\bsql\(|\.(?:prepare|pragma)\(|\b\w*(?:db|Db|database)\.(?:exec|get|all|value|column|run)\(/;

/** `file:line: text` of every line outside src/store that talks to the database directly. */
function sqlOutsideStore(texts: Map<string, string>): string[] {
  return [...texts].flatMap(([file, text]) =>
    file.startsWith('store/')
      ? []
      : text.split('\n').flatMap((line, i) => (SQL_CALL.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

// One transaction runner (store/transaction-runner.ts): no other file opens a transaction, a driver's
// `.transaction(` nor a statement that begins one. Domain commands assert they run inside one (`assertInTransaction`).
// The drivers of the store seam begin what the runner asks of them, and the migrations at open run before any runner.
const TRANSACTION_OPEN = /\.transaction\(|['"`]BEGIN\b/;
const RUNNER = 'store/transaction-runner.ts';
const DRIVERS = ['store/sqlite.ts', 'store/postgres.ts', 'store/db.ts'];

/** `file:line: text` of every line outside the runner that opens a transaction. */
function transactionsOutsideRunner(texts: Map<string, string>): string[] {
  return [...texts].flatMap(([file, text]) =>
    file === RUNNER || DRIVERS.includes(file) || file.startsWith('contracts/')
      ? []
      : text
          .split('\n')
          .flatMap((line, i) => (TRANSACTION_OPEN.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  );
}

// State is declared (docs/development.md, "State"): every piece of a server's state is a member of its deps, built by
// src/wiring.ts. A module-level table keyed by an object (a WeakMap, or a Map or Set it fills) is state hidden beside
// them, reached as `xxxOf(deps)`; only a memo of a pure function may stay, named a cache.
const SIDE_TABLE = /^(?:export )?(?:const|let) ([A-Za-z_]\w*)\s*(?::[^=]+)?=\s*new WeakMap\b/;

/** `file:line: name` of every module-level WeakMap not named a cache. */
function sideTables(texts: Map<string, string>): string[] {
  return [...texts].flatMap(([file, text]) =>
    text.split('\n').flatMap((line, i) => {
      const name = SIDE_TABLE.exec(line)?.[1];
      return name !== undefined && !/[cC]ache$/.test(name) ? [`${file}:${i + 1}: ${name}`] : [];
    }),
  );
}

/**
 * The layers, top to bottom, and what each may import from src (anything from node: or a package is fine). A file
 * belongs to the first layer whose pattern holds it; every file of src belongs to one.
 */
interface Layer {
  name: string;
  holds: RegExp;
  mayImport: readonly string[];
}

const ANY = ['*'];
export const LAYERS: readonly Layer[] = [
  // The command line composes everything.
  { name: 'Entry', holds: /^cli\/|^index\.ts$/, mayImport: ANY },
  // Clients that judge an implementation (scenario runner, verify, proxy, replay): they talk HTTP and share no code
  // with what they judge (no domain, store, HTTP layer or server start-up, not even a pure value such as the money
  // parser), so a bug there cannot pass its own test. They read the contracts, redact what they keep, and verify
  // webhook signatures with the verifier partners import.
  {
    name: 'Tools',
    holds: /^(scenario|verify|proxy|replay)\//,
    mayImport: ['Tools', 'Contracts', 'Redaction', 'PartnerVerifier'],
  },
  // Starting a server: the wiring of every member, the ready account, the HTTP app, the timers, shutdown.
  {
    name: 'Server',
    holds: /^(server|wiring|bootstrap)\.ts$|^lifecycle\//,
    mayImport: [
      'Server',
      'Config',
      'Http',
      'Webhooks',
      'RequestLog',
      'Domain',
      'Store',
      'Logging',
      'Metering',
      'Redaction',
      'Contracts',
    ],
  },
  { name: 'Config', holds: /^config\.ts$/, mayImport: ['Config', 'Domain'] },
  // The app and what every route module shares: errors, middleware, validation, the runners of commands.
  {
    name: 'Http',
    holds: /^app\.ts$|^http\//,
    mayImport: [
      'Http',
      'Routes:api',
      'Routes:simulation-api',
      'Routes:admin',
      'Console',
      'Config',
      'Webhooks',
      'RequestLog',
      'Domain',
      'Metering',
      'Redaction',
      'Contracts',
    ],
  },
  // The route modules of /v1, /sandbox/v1 and /admin/v1: each a group of its own, never importing another's.
  ...(['api', 'simulation-api', 'admin'] as const).map((folder) => ({
    name: `Routes:${folder}`,
    holds: new RegExp(`^${folder}\\/`),
    mayImport: [`Routes:${folder}`, 'Http', 'Config', 'Webhooks', 'RequestLog', 'Domain', 'Redaction', 'Contracts'],
  })),
  // The console acts through the public API only: it reads no domain state, only pure values (money, fees).
  { name: 'Console', holds: /^console\//, mayImport: ['Console', 'Http', 'Config', 'Contracts', 'Values'] },
  // The webhook verifier partners import (`card-issuing-sandbox/webhooks`): node:crypto only.
  { name: 'PartnerVerifier', holds: /^webhooks\/verify\.ts$/, mayImport: [] },
  { name: 'Webhooks', holds: /^webhooks\//, mayImport: ['Webhooks', 'Config', 'Domain', 'Metering', 'Redaction'] },
  {
    name: 'RequestLog',
    holds: /^request-log\//,
    mayImport: ['RequestLog', 'Domain', 'Store', 'Metering', 'Redaction'],
  },
  // The domain knows no HTTP: plain functions over a store.
  { name: 'Domain', holds: /^domain\//, mayImport: ['Domain', 'Store', 'Metering', 'Redaction'] },
  // The store knows no domain service: SQL only.
  { name: 'Store', holds: /^store\//, mayImport: ['Store'] },
  { name: 'Logging', holds: /^logging\//, mayImport: ['Logging', 'Redaction'] },
  // What the server counts for its operator (tenant budgets acting, webhook attempts ending): plain counters.
  { name: 'Metering', holds: /^metering\//, mayImport: [] },
  { name: 'Redaction', holds: /^redaction\//, mayImport: ['Redaction'] },
  { name: 'Contracts', holds: /^contracts\//, mayImport: ['Contracts'] },
];

function layerOf(file: string): Layer | undefined {
  return LAYERS.find((l) => l.holds.test(file));
}

/**
 * Domain files that reach no store, directly or through another file (money, fees, event types): pure values any
 * layer may use, as the `Values` entry of a layer's list.
 */
function pureValues(graph: Map<string, string[]>): Set<string> {
  const impure = new Set<string>();
  let changed = true;
  while (changed) {
    changed = false;
    for (const [file, targets] of graph) {
      if (!file.startsWith('domain/') || impure.has(file)) continue;
      if (targets.some((t) => t.startsWith('store/') || impure.has(t) || !t.startsWith('domain/'))) {
        impure.add(file);
        changed = true;
      }
    }
  }
  return new Set([...graph.keys()].filter((f) => f.startsWith('domain/') && !impure.has(f)));
}

function layerViolations(graph: Map<string, string[]>): string[] {
  const values = pureValues(graph);
  return [...graph].flatMap(([file, targets]) => {
    const layer = layerOf(file);
    if (!layer) return [`${file} belongs to no layer`];
    if (layer.mayImport === ANY) return [];
    return targets
      .filter((t) => {
        const target = layerOf(t);
        if (target && layer.mayImport.includes(target.name)) return false;
        return !(layer.mayImport.includes('Values') && values.has(t));
      })
      .map((t) => `${file} (${layer.name}) imports ${t} (${layerOf(t)?.name ?? 'no layer'})`);
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

describe('layers: entry -> server -> http -> webhooks, request log -> domain -> store', () => {
  const graph = importGraph();

  it('reads the whole source tree', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('domain/cards/cards.ts')).toContain('store/db.ts');
  });

  it('every file of src belongs to a layer and imports only what its layer may', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('src/ has no import circle (the migrations index aside)', () => {
    expect(circles(graph)).toEqual([]);
  });

  it.each(LAYERS.filter((l) => l.mayImport !== ANY).map((l) => [l.name, l] as const))(
    'the check bites in %s: a planted import of a layer it may not use is found',
    (_name, layer) => {
      const from = [...graph.keys()].find((f) => layerOf(f) === layer)!;
      const forbidden = LAYERS.find((l) => l !== layer && !layer.mayImport.includes(l.name))!;
      const into = [...graph.keys()].find((f) => layerOf(f) === forbidden && !pureValues(graph).has(f))!;
      const planted = new Map(graph);
      planted.set(from, [...graph.get(from)!, into]);
      expect(layerViolations(planted)).toEqual([`${from} (${layer.name}) imports ${into} (${forbidden.name})`]);
    },
  );

  it('SQL has one home: no file outside src/store calls sql(, .prepare(, .pragma( or a database .exec(', () => {
    const texts = sourceTexts();
    const storeFilesWithSql = [...texts].filter(([file, text]) => file.startsWith('store/') && SQL_CALL.test(text));
    expect(storeFilesWithSql.length).toBeGreaterThan(15);
    expect(sqlOutsideStore(texts)).toEqual([]);
  });

  it("the SQL check bites: planted statements are found, a regular expression's exec is not", () => {
    const planted = new Map(sourceTexts());
    const cards = planted.get('domain/cards/cards.ts')!;
    const lines = cards.split('\n').length;
    planted.set(
      'domain/cards/cards.ts',
      [
        cards,
        "  sql(deps.db, 'SELECT 1').get();",
        "  deps.db.exec('DELETE FROM cards');",
        "  db.prepare('SELECT 1');",
        "  deps.db.pragma('foreign_keys = OFF');",
        '  const m = DECIMAL.exec(text);',
      ].join('\n'),
    );
    expect(sqlOutsideStore(planted)).toEqual([
      `domain/cards/cards.ts:${lines + 1}: sql(deps.db, 'SELECT 1').get();`,
      `domain/cards/cards.ts:${lines + 2}: deps.db.exec('DELETE FROM cards');`,
      `domain/cards/cards.ts:${lines + 3}: db.prepare('SELECT 1');`,
      `domain/cards/cards.ts:${lines + 4}: deps.db.pragma('foreign_keys = OFF');`,
    ]);
  });

  it('every transaction opens through the one runner: no other file calls .transaction( or sends BEGIN', () => {
    const texts = sourceTexts();
    expect(TRANSACTION_OPEN.test(texts.get(RUNNER)!)).toBe(true);
    expect(transactionsOutsideRunner(texts)).toEqual([]);
  });

  it('the runner check bites: a transaction opened in the domain, the store or a job is found', () => {
    const planted = new Map(sourceTexts());
    for (const file of ['domain/cards/cards.ts', 'store/cards.ts', 'domain/kernel/jobs.ts']) {
      planted.set(file, `${planted.get(file)!}\n  deps.db.transaction(() => work())();`);
    }
    expect(transactionsOutsideRunner(planted).map((line) => line.split(':')[0])).toEqual([
      'domain/cards/cards.ts',
      'domain/kernel/jobs.ts',
      'store/cards.ts',
    ]);
  });

  it('state is declared: no module-level side table, only caches of pure functions', () => {
    expect(sideTables(sourceTexts())).toEqual([]);
  });

  it('the state check bites: a planted side table is found, a cache is not', () => {
    const planted = new Map(sourceTexts());
    const file = 'http/middleware/rate-limit.ts';
    const lines = planted.get(file)!.split('\n').length;
    planted.set(
      file,
      `${planted.get(file)!}\nconst limiters = new WeakMap<ServerDeps, Limiter>();\nconst digestCache = new WeakMap<object, string>();`,
    );
    expect(sideTables(planted)).toEqual([`${file}:${lines + 1}: limiters`]);
  });

  it.each(['scenario', 'verify', 'proxy', 'replay'])(
    'clients share no code with what they judge: a planted import from src/%s into domain, store or http is found',
    (tool) => {
      const from = [...graph.keys()].find((f) => f.startsWith(`${tool}/`))!;
      for (const into of ['domain/kernel/money.ts', 'store/db.ts', 'http/errors.ts', 'server.ts']) {
        const planted = new Map(graph);
        planted.set(from, [...graph.get(from)!, into]);
        expect(layerViolations(planted)).toEqual([`${from} (Tools) imports ${into} (${layerOf(into)!.name})`]);
      }
    },
  );

  it('serve loads no scenario code: nothing serve.ts reaches, statically or by import(), is under src/scenario', () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const target of graph.get(file) ?? []) visit(target);
    };
    visit('cli/serve.ts');
    expect(reached.has('server.ts')).toBe(true);
    expect([...reached].filter((f) => f.startsWith('scenario/'))).toEqual([]);
  });

  it('one server start-up: only server.ts creates the app and listens', () => {
    const texts = sourceTexts();
    const starts = [...texts].filter(([, text]) => /\bcreateApp\(|\bserve\(\s*\{/.test(text)).map(([f]) => f);
    expect(starts.sort()).toEqual(['app.ts', 'server.ts']);
  });

  it('comments carry no benchmark figures: no µs or req/s in src (they live in bench/)', () => {
    const FIGURE = /\d\s*(µs|us\b|req\/s)/;
    const found = [...sourceTexts()].flatMap(([file, text]) =>
      file === 'contracts/api-types.d.ts'
        ? []
        : text.split('\n').flatMap((line, i) => (FIGURE.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
    expect(FIGURE.test('// 2 KiB pages cut it (bench: 329 -> 296 us)')).toBe(true);
    expect(FIGURE.test('// at about 150 µs each')).toBe(true);
  });

  it('the circle check bites: a two-file circle is found', () => {
    const bad = new Map([
      ['domain/a.ts', ['domain/b.ts']],
      ['domain/b.ts', ['domain/a.ts']],
    ]);
    expect(circles(bad)).toEqual([['domain/a.ts', 'domain/b.ts']]);
  });
});
