// npm run bench:compare -- --baseline REF: this checkout's build against another commit's, side by side in one run.
// REF (default bd7ffcc; repeat --baseline for more) is checked out and built in a worktree under bench/tmp/ (removed
// at the end); every build runs as its own server process with the same flags (`--log-level info`, the default, and
// the request log on where the build has one), beside the bare Hono route and the floor routes (the bare route plus
// what any faithful read or keyed write must do: bench/lib/floor-server.mjs). Each round measures every scenario on
// every build in turn, the builds' order alternating; it prints and writes bench/compare-results.md: server CPU per
// request, req/s, p50/p99, this build over each baseline and every build over the bare route.
// --baseline-dir DIR (repeatable) adds a checkout already built (its dist/ as it is) as a baseline.
// Options: --rounds N (3), --seconds S (3, after a 1 s warm-up), --read-connections N (20), --write-connections
// 20,50, --transactions N (100,000 seeded for bill/list), --deposit-cards N (20,000), --log-level LEVEL (info),
// --scenario TEXT (only scenarios whose name holds TEXT; repeatable), --out FILE (bench/compare-results.md).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ADMIN_TOKEN } from './lib/client.mjs';
import { renderComparison } from './lib/compare-report.mjs';
import { scenarioList, setUpScenarios } from './lib/compare-scenarios.mjs';
import { measure } from './lib/load.mjs';
import { freePort, startNode } from './lib/procs.mjs';
import { buildCommit, describeCheckout, describeCommit } from './lib/ref-build.mjs';
import { keyed } from './lib/keyed.mjs';
import { machine } from './lib/report.mjs';

const { values: opt } = parseArgs({
  options: {
    baseline: { type: 'string', multiple: true },
    'baseline-dir': { type: 'string', multiple: true, default: [] },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '3' },
    'read-connections': { type: 'string', default: '20' },
    'write-connections': { type: 'string', default: '20,50' },
    transactions: { type: 'string', default: '100000' },
    'deposit-cards': { type: 'string', default: '20000' },
    'log-level': { type: 'string', default: 'info' },
    scenario: { type: 'string', multiple: true, default: [] },
    out: { type: 'string', default: 'bench/compare-results.md' },
  },
});
const settings = {
  rounds: Number(opt.rounds),
  seconds: Number(opt.seconds),
  readConnections: Number(opt['read-connections']),
  writeConnections: opt['write-connections'].split(',').map(Number),
  transactions: Number(opt.transactions),
  depositCards: Number(opt['deposit-cards']),
};
const TMP = resolve('bench/tmp/compare');
const log = (...a) => console.error('[bench:compare]', ...a);

const builds = [];
const cleanups = [];
async function cleanUp() {
  for (const fn of cleanups.splice(0).reverse()) {
    try {
      await fn();
    } catch (err) {
      log(`cleanup: ${err.message}`);
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143)));

/** Whether the build in `dir` has the request log (`serve --request-log`); a build from before it has none. */
function hasRequestLog(dir) {
  try {
    const help = execFileSync(process.execPath, ['dist/src/cli/main.js', 'serve', '--help'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return help.includes('--request-log ');
  } catch {
    return false;
  }
}

async function startServer(build, dbPath) {
  const port = await freePort();
  const flags = ['--log-level', opt['log-level'], ...(hasRequestLog(build.dir) ? ['--request-log', 'on'] : [])];
  const s = await startNode(
    ['dist/src/cli/main.js', 'serve', '--db', dbPath, '--port', String(port), '--admin-token', ADMIN_TOKEN, ...flags],
    { env: { SANDBOX_BOOTSTRAP: 'false' }, healthUrl: `http://127.0.0.1:${port}/healthz`, cwd: build.dir },
  );
  cleanups.push(() => s.stop());
  build.flags = `serve ${flags.join(' ')}`;
  return { ...s, url: `http://127.0.0.1:${port}` };
}

/** A reference server (a script of bench/lib taking PORT), stopped at the end; its port and pid. */
async function startReference(script, env = {}) {
  const port = await freePort();
  const s = await startNode([script], {
    env: { PORT: String(port), ...env },
    healthUrl: `http://127.0.0.1:${port}/healthz`,
  });
  cleanups.push(() => s.stop());
  return { port, pid: s.child.pid };
}

async function startBare() {
  const { port, pid } = await startReference('bench/lib/bare-server.mjs');
  const options = {
    url: `http://127.0.0.1:${port}/bare`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  };
  return { pid, optionsFor: () => options };
}

/** The floor routes (bench/lib/floor-server.mjs): the bare route plus what any faithful read or keyed write must do. */
async function startFloor() {
  const { port, pid } = await startReference('bench/lib/floor-server.mjs', { DB: join(TMP, 'floor.db') });
  const read = {
    url: `http://127.0.0.1:${port}/floor`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'sk_sandbox_floor' },
    body: '{}',
  };
  let runs = 0;
  let card = 0;
  const deposit = () =>
    keyed(`http://127.0.0.1:${port}/floor/deposit`, 'sk_sandbox_floor', `floor-${++runs}`, () => ({
      cardId: `card_${card++ % 20_000}`,
      amount: 1,
      currency: 'USDT',
    }));
  return { pid, optionsFor: (name) => (name.includes('keyed') ? deposit() : read) };
}

async function main() {
  const when = new Date().toISOString();
  const m = machine();
  const loads = [os.loadavg()[0]];
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(TMP, { recursive: true });
  cleanups.push(() => rmSync(TMP, { recursive: true, force: true }));
  const self = describeCheckout();
  builds.push({ name: 'this', label: `${self.ref} ${self.short} "${self.subject}"`, dir: process.cwd() });
  // No baseline named at all: the issue's, bd7ffcc.
  const refs = opt.baseline ?? (opt['baseline-dir'].length ? [] : ['bd7ffcc']);
  for (const ref of refs) {
    const commit = describeCommit(ref);
    const built = buildCommit(commit, join(TMP, `build-${commit.short}`), log);
    cleanups.push(built.remove);
    builds.push({ name: commit.short, label: `${ref} = ${commit.sha} "${commit.subject}"`, dir: built.dir });
  }
  for (const [i, dir] of opt['baseline-dir'].entries()) {
    const at = resolve(dir);
    // Named by the commit its checkout is at, when it is a git checkout (dir1, dir2... when not).
    let head;
    try {
      head = describeCheckout(at);
    } catch {
      head = undefined;
    }
    const name = head ? `${head.short}${head.dirty ? '+' : ''}` : `dir${i + 1}`;
    const what = head ? `: ${head.ref} of ${head.sha} "${head.subject}"` : '';
    builds.push({ name, label: `the build in ${at}${what} (its dist/ as it is, not rebuilt)`, dir: at });
  }
  const notes = [];
  const bare = await startBare();
  const floor = await startFloor();
  for (const [i, b] of builds.entries()) {
    const dbPath = join(TMP, `db-${i}`, 'sandbox.db');
    b.server = await startServer(b, dbPath);
    log(`${b.name}: setting up (${settings.depositCards} cards, ${settings.transactions} transactions)`);
    try {
      b.scenarios = await setUpScenarios(b.server.url, dbPath, { ...settings, tag: `${b.name}-${process.pid}` });
    } catch (err) {
      if (b.server.child.exitCode !== null) log(`${b.name} exited:\n${b.server.stderr()}`);
      throw err;
    }
    b.pid = b.server.child.pid;
    b.optionsFor = (name) => b.scenarios.optionsFor(name);
  }
  const filters = opt.scenario;
  const scenarios = scenarioList(settings).filter(
    (s) => s.bare || filters.length === 0 || filters.some((f) => s.name.includes(f)),
  );
  const results = new Map();
  const record = (s, name, measured) => {
    const k = `${s.name} @${s.connections}`;
    if (!results.has(k)) results.set(k, new Map());
    const byBuild = results.get(k);
    if (!byBuild.has(name)) byBuild.set(name, []);
    byBuild.get(name).push(measured);
  };
  for (let round = 0; round < settings.rounds; round++) {
    // Rotated each round, so that no build is always measured first (or right after the machine's quiet moments).
    const order = builds.map((_, i) => builds[(i + round) % builds.length]);
    for (const s of scenarios) {
      for (const target of s.bare ? [{ name: 'bare', ...(s.floor ? floor : bare) }] : order) {
        const measured = await measure({ ...target.optionsFor(s.name), connections: s.connections }, target.pid, {
          seconds: settings.seconds,
        });
        record(s, target.name, measured);
        log(
          `round ${round + 1} ${`${s.name} @${s.connections}`.padEnd(26)} ${target.name.padEnd(7)} ` +
            `cpu ${Math.round(measured.cpuUsPerReq)} us (main ${Math.round(measured.mainThreadUsPerReq)}) ` +
            `${Math.round(measured.rps)} req/s p50 ${measured.p50} p99 ${measured.p99} ` +
            `non-2xx ${measured.non2xx} errors ${measured.errors}`,
        );
      }
    }
    loads.push(os.loadavg()[0]);
  }
  for (const b of builds)
    notes.push(`${b.name}: deposits went round ${b.scenarios.cards.toLocaleString('en-US')} cards at the start.`);
  const md = renderComparison({
    when,
    machine: `${m.cpu}, ${m.memGiB} GiB, ${m.platform}, Node ${m.node}`,
    loads: loads.map((x) => x.toFixed(1)).join(', '),
    builds,
    scenarios,
    results,
    settings,
    notes,
  });
  const out = opt.out;
  writeFileSync(out, await formatted(md, out));
  process.stdout.write(md + '\n');
}

/** The markdown as Prettier lays it out (aligned tables: the file is committed), or as it is without Prettier. */
async function formatted(md, file) {
  try {
    const prettier = await import('prettier');
    return await prettier.format(md, { ...(await prettier.resolveConfig(file)), parser: 'markdown' });
  } catch {
    return md;
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(cleanUp);
