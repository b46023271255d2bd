// bench/results.md: one table per measurement family, with the machine and its load next to the figures.
import os from 'node:os';
import { coldStartLines } from './cold-start.mjs';

const f1 = (x) => (x === undefined ? '' : x.toFixed(1));
const f0 = (x) => Math.round(x).toLocaleString('en-US');

export function machine() {
  const cpus = os.cpus();
  return {
    cpu: `${cpus.length} x ${cpus[0]?.model ?? 'unknown'}`,
    memGiB: (os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    loadavg: os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' '),
  };
}

export function render({
  when,
  m,
  loadEnd,
  connections,
  seconds,
  throughput,
  pages,
  seedInfo,
  cold,
  webhook,
  library,
}) {
  const lines = [];
  lines.push('# Bench results', '');
  lines.push(`Run ${when}. Machine: ${m.cpu}, ${m.memGiB} GiB, ${m.platform}, Node ${m.node}.`);
  lines.push(
    `Load average at start ${m.loadavg}, at end ${loadEnd}: the 2 cores are shared with other work (other engineers'`,
    'builds and tests), and autocannon runs on the same cores as the server, so figures are noisy (about +-25 %).',
    '',
  );
  lines.push(`## Throughput (autocannon, ${connections} connections, ${seconds} s after a 1 s warm-up, loopback)`, '');
  lines.push(
    '| scenario | req/s | p50 ms | p99 ms | ratio to bare | target | met | non-2xx | server CPU µs/req | CPU ratio |',
  );
  lines.push('|---|---:|---:|---:|---:|---|---|---:|---:|---:|');
  const bareCpu = throughput[0].cpuUsPerReq;
  for (const t of throughput) {
    lines.push(
      `| ${t.name} | ${f0(t.rps)} | ${f1(t.p50)} | ${f1(t.p99)} | ${(t.ratio * 100).toFixed(0)} % | ${t.target ?? ''} | ${
        t.met === undefined ? '' : t.met ? 'yes' : '**no**'
      } | ${t.non2xx + t.errors} | ${f0(t.cpuUsPerReq)} | ${((100 * bareCpu) / t.cpuUsPerReq).toFixed(0)} % |`,
    );
  }
  lines.push(
    '',
    '"CPU ratio" is the bare route\'s server CPU per request over the scenario\'s: the req/s ratio the scenario would',
    'reach if the server had a core to itself. It is steadier than req/s when other work shares the machine.',
  );
  lines.push(
    '',
    `## bill/list on one account with ${f0(seedInfo.count)} transactions (sequential, one connection)`,
    '',
  );
  lines.push(`Seeded with SQL in one transaction in ${f0(seedInfo.seedMs)} ms.`, '');
  lines.push('| page | pageNumber | p50 ms | p99 ms | max ms | target | met |');
  lines.push('|---|---:|---:|---:|---:|---|---|');
  for (const p of pages) {
    lines.push(
      `| ${p.name} | ${p.pageNumber} | ${f1(p.p50)} | ${f1(p.p99)} | ${f1(p.max)} | p50 < 10 ms | ${p.p50 < 10 ? 'yes' : '**no**'} |`,
    );
  }
  lines.push('', '## Cold start (spawn to the first 200 on /healthz, beside a bare Hono + better-sqlite3 server)', '');
  lines.push(...coldStartLines(cold));
  lines.push('', '## Webhook retry schedule (one event, 7 attempts over 17.6 h of account time)', '');
  if (webhook.skipped) lines.push(`Skipped: ${webhook.skipped}.`);
  else {
    lines.push(
      `One clock advance of 18 h ran ${webhook.attempts} attempts (${webhook.distinctEventIds} distinct event id) in ${f0(webhook.ms)} ms` +
        ` (target < 1000 ms: ${webhook.ms < 1000 ? 'met' : '**missed**'}).`,
    );
  }
  lines.push(
    '',
    "## Scenario library (`scenario run 'scenarios/*.yaml'`, each file on its own in-process sandbox)",
    '',
  );
  lines.push(`${f0(library.ms)} ms (target < 10,000 ms: ${library.ms < 10_000 ? 'met' : '**missed**'}).`);
  lines.push('');
  return lines.join('\n');
}
