// Sequential single-request latency (one connection, no load): what one partner call costs.
import { Agent, request } from 'node:http';

function once(agent, url, body, headers) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(
      url,
      { agent, method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ ms: performance.now() - started, status: res.statusCode, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** `n` sequential calls after a few warm-ups: p50, p99 and max in ms; throws on a non-200. */
export async function sequentialLatency(url, body, headers, n = 200) {
  // A fresh keep-alive connection: a pooled one may have been closed by the server while it sat idle.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < 10; i++) await once(agent, url, body, headers);
  const times = [];
  let last;
  for (let i = 0; i < n; i++) {
    last = await once(agent, url, body, headers);
    if (last.status !== 200) throw new Error(`${url}: HTTP ${last.status} ${last.body}`);
    times.push(last.ms);
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  return {
    p50: pct(times, 50),
    p99: pct(times, 99),
    max: times[times.length - 1],
    body: JSON.parse(last.body.toString()),
  };
}
