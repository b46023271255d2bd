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

/** CPU seconds (user + system) a process has used so far, from /proc (Linux; clock ticks of 10 ms). */
function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/**
 * Measures one scenario. `opts` are autocannon options (url, method, headers, body or requests).
 * Returns req/s (mean over the run), p50 and p99 latency in ms, the count of non-2xx answers and errors, and,
 * given the server's pid, the server's CPU time per request in microseconds: on a machine shared with other
 * work, CPU per request moves far less than req/s does.
 */
export async function measure(opts, serverPid) {
  await run({ ...opts, duration: 1 });
  const cpuBefore = cpuSeconds(serverPid);
  const r = await run({ ...opts, duration: SECONDS });
  const cpu = cpuSeconds(serverPid) - cpuBefore;
  return {
    cpuUsPerReq: (cpu * 1e6) / r.requests.total,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}
