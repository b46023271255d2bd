// One autocannon measurement: a short warm-up (discarded), then the measured run.
import autocannon from 'autocannon';
import { readFileSync } from 'node:fs';

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

function run(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, pipelining: 1, ...opts }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

/**
 * CPU seconds (user + system) a process has used so far, every thread of it, from /proc (Linux; clock ticks of
 * 10 ms); with `thread`, only that thread's (the process's own pid names its main thread: the one serving requests).
 */
export function cpuSeconds(pid, thread) {
  try {
    const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
    const fields = readFileSync(path, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** CPU seconds of each of `pids` so far. */
function cpuOf(pids) {
  return new Map(pids.map((pid) => [pid, cpuSeconds(pid)]).filter(([, cpu]) => !Number.isNaN(cpu)));
}

/**
 * Measures one scenario. `opts` are autocannon options (url, method, headers, body or requests).
 * Returns req/s (mean over the run), p50 and p99 latency in ms, the count of non-2xx answers and errors, and,
 * given the server's pid, the server's CPU time per request in microseconds: on a machine shared with other
 * work, CPU per request moves far less than req/s does. `mainThreadUsPerReq` is the part of it spent on the
 * server's main thread (the rest ran on its worker threads, such as the WAL checkpointer). `seconds` overrides
 * BENCH_SECONDS. `alsoPids()` names more processes whose CPU counts as the server's (PostgreSQL's).
 */
export async function measure(opts, serverPid, { seconds = SECONDS, alsoPids } = {}) {
  await run({ ...opts, duration: 1 });
  const others = alsoPids ? cpuOf(alsoPids()) : new Map();
  const cpuBefore = cpuSeconds(serverPid);
  const mainBefore = cpuSeconds(serverPid, serverPid);
  const r = await run({ ...opts, duration: seconds });
  const node = cpuSeconds(serverPid) - cpuBefore;
  let cpu = node;
  // Processes the server's work runs in too (a database server's backends): a process born during the run counts whole.
  if (alsoPids) for (const [pid, after] of cpuOf(alsoPids())) cpu += after - (others.get(pid) ?? 0);
  const main = cpuSeconds(serverPid, serverPid) - mainBefore;
  return {
    cpuUsPerReq: (cpu * 1e6) / r.requests.total,
    nodeUsPerReq: (node * 1e6) / r.requests.total,
    mainThreadUsPerReq: (main * 1e6) / r.requests.total,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}

/**
 * Measures one scenario spread over several servers at once (instances of one deployment): `optsList[i]` is sent to
 * the server whose pid is `serverPids[i]`, all in the same seconds. CPU per request counts every server and
 * `alsoPids()` over every request answered; req/s is the sum; p50 and p99 are the highest of the servers' (a
 * deployment is as slow as its slowest instance).
 */
export async function measureSpread(optsList, serverPids, { seconds = SECONDS, alsoPids } = {}) {
  await Promise.all(optsList.map((opts) => run({ ...opts, duration: 1 })));
  const before = cpuOf([...serverPids, ...(alsoPids ? alsoPids() : [])]);
  const results = await Promise.all(optsList.map((opts) => run({ ...opts, duration: seconds })));
  let node = 0;
  let cpu = 0;
  for (const [pid, after] of cpuOf([...serverPids, ...(alsoPids ? alsoPids() : [])])) {
    const used = after - (before.get(pid) ?? 0);
    cpu += used;
    if (serverPids.includes(pid)) node += used;
  }
  const total = results.reduce((n, r) => n + r.requests.total, 0);
  return {
    cpuUsPerReq: (cpu * 1e6) / total,
    nodeUsPerReq: (node * 1e6) / total,
    rps: results.reduce((n, r) => n + r.requests.average, 0),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    total,
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors + r.timeouts, 0),
  };
}
