// One autocannon measurement: a short warm-up (discarded), then the measured run.
import autocannon from 'autocannon';

export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

function run(opts) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, pipelining: 1, ...opts }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/**
 * Measures one scenario. `opts` are autocannon options (url, method, headers, body or requests).
 * Returns req/s (mean over the run), p50 and p99 latency in ms, and the count of non-2xx answers and errors.
 */
export async function measure(opts) {
  await run({ ...opts, duration: 1 });
  const r = await run({ ...opts, duration: SECONDS });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}
