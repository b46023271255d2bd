// node bench/request-path.mjs [--dir CHECKOUT] [--requests N]: which files of src/ one keyed `POST /v1/card/create`
// runs through, from the server's socket to SQL and back, and how often it re-enters a file it already visited.
// CHECKOUT (default: this one) must be built (its dist/). The server is started in-process by its own
// `startServer`, on :memory:, and sampled by V8's CPU profiler at its finest interval over N keyed creates (default
// 3,000, after a warm-up); the samples' call tree is the union of every call path the requests took. A file is
// *entered* from each other file that calls into it somewhere in that tree, as a reader following the request
// comes back to it from there: re-entries are the entries beyond each file's first. Sampling can miss a path that
// takes less than an interval on every request; more requests narrow that. It reports the files in the order the walk
// meets them, with their entries, and the totals; what a wall-clock timer runs after the answers (the request log's
// batch) is reported apart.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { resolve, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

// Optimised code inlines one file's functions into another's frames, and the profile then shows calls that never
// happened: the trace runs unoptimised (its own process, re-run with the flags).
const FLAGS = ['--no-opt', '--no-sparkplug'];
if (!FLAGS.every((f) => process.execArgv.includes(f))) {
  const run = spawnSync(process.execPath, [...FLAGS, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

const { values: opt } = parseArgs({
  options: { dir: { type: 'string', default: '.' }, requests: { type: 'string', default: '3000' } },
});
const dir = resolve(opt.dir);
const requests = Number(opt.requests);
const src = resolve(dir, 'dist/src') + sep;
const load = (path) => import(pathToFileURL(resolve(dir, 'dist/src', path)).href);

const { startServer } = await load('server.js');
const { DEFAULT_CONFIG } = await load('config.js');
const API_KEY = 'sk_sandbox_request_path_0123456789abcdefghij';
const server = await startServer({
  config: Object.freeze({
    ...DEFAULT_CONFIG,
    host: '127.0.0.1',
    port: 0,
    dbPath: ':memory:',
    apiKey: API_KEY,
    seedBalanceMicros: 1e15,
    backgroundJobs: false,
  }),
});

let n = 0;
const create = async () => {
  const res = await fetch(`${server.url}/v1/card/create`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': API_KEY, 'idempotency-key': `path-${n++}` },
    body: JSON.stringify({ amount: 10, currency: 'USDT' }),
  });
  if (res.status !== 200) throw new Error(`card/create answered ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
};
for (let i = 0; i < 300; i++) await create();

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 1 });
await session.post('Profiler.start');
for (let i = 0; i < requests; i++) await create();
const { profile } = await session.post('Profiler.stop');
session.disconnect();
await server.close(0);

const fileOf = (node) => {
  const url = node.callFrame.url;
  if (!url.startsWith('file://')) return undefined;
  const path = new URL(url).pathname;
  return path.startsWith(src) ? relative(src, path).replace(/\.js$/, '.ts') : undefined;
};
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
// The request log's batch (written once a second after the answers, on a timer and then in slices of setImmediate)
// is not the request's path: what runs in its writing methods is walked apart and reported after it. A frame counts
// as theirs by where its function is defined, not by its name: the batch's transaction callback is an arrow the
// transaction runner calls, and the rest of an async method after an await resumes with no caller above it.
// Other setImmediate callbacks (the group commit that runs a keyed write) stay on the path.
const AFTER_ANSWER = new Set(['flushInSlices', 'writeSlice', 'write', 'writeNow']);
const LOG_FILE = 'request-log/log.ts';
/** The built request log's methods as [name, first line] (0-based, as the profile counts), in order. */
const logMethods = readFileSync(resolve(src, 'request-log/log.js'), 'utf8')
  .split('\n')
  .flatMap((line, i) => {
    const method = /^ {4}(?:async )?(\w+)\(/.exec(line)?.[1];
    return method ? [[method, i]] : [];
  });
const methodAt = (line) => logMethods.findLast(([, first]) => first <= line)?.[0];
const isTimer = (node) => fileOf(node) === LOG_FILE && AFTER_ANSWER.has(methodAt(node.callFrame.lineNumber));
/** File -> the files it is entered from (the request's own start, Node or Hono, is `(outside)`). */
const entries = new Map();
const afterAnswer = new Map();
// Walk the tree from its root, carrying the nearest src file above each node (frames of Node, Hono or SQLite in
// between do not end a visit: a callback handed to a package and called back is still the same file's work).
const walk = (node, above, into) => {
  if (isTimer(node)) into = afterAnswer;
  const file = fileOf(node);
  if (file !== undefined && file !== above) {
    if (!into.has(file)) into.set(file, new Set());
    into.get(file).add(above ?? '(outside)');
  }
  for (const child of node.children ?? []) walk(byId.get(child), file ?? above, into);
};
walk(profile.nodes[0], undefined, entries);

const report = (title, map) => {
  const files = [...map];
  const reentries = files.reduce((sum, [, from]) => sum + from.size - 1, 0);
  console.log(title);
  for (const [file, from] of files)
    console.log(`${String(from.size).padStart(3)}  ${file}  <- ${[...from].join(', ')}`);
  return { files: files.length, reentries };
};
const path = report('The request path:', entries);
const later = report("\nAfter the answer (the request log's batch):", afterAnswer);
const all = new Set([...entries.keys(), ...afterAnswer.keys()]).size;
console.log(
  `\n${relative(process.cwd(), dir) || '.'}: ${path.files} files, ${path.reentries} re-entries on the request path; ` +
    `${later.files} files in the request log's batch after it (${all} files in all); ${requests} requests sampled`,
);
