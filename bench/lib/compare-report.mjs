// bench/compare-results.md: per scenario, every build's median server CPU per request with its range over the
// rounds, the ratio of this build to each baseline (the median of the per-round ratios: a round's measurements ran
// minutes apart at most, on the same machine load), and each build's ratio to the bare route.

function median(xs) {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const f0 = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '-');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const range = (xs) => `${f0(Math.min(...xs))}-${f0(Math.max(...xs))}`;
const key = (s) => `${s.name} @${s.connections}`;

/**
 * `results`: Map of `name @connections` -> build name -> measurements (one per round). `builds`: this build first,
 * then the baselines, each {name, label}. Returns the markdown.
 */
export function renderComparison({ when, machine, loads, builds, scenarios, results, settings, notes }) {
  const [self, ...baselines] = builds;
  const cpu = (s, b) => (results.get(key(s))?.get(b.name) ?? []).map((m) => m.cpuUsPerReq);
  const bareCpu = (connections) => median(cpu({ name: 'bare Hono route', connections }, { name: 'bare' }));
  const lines = ['# Side-by-side comparison (`npm run bench:compare`)', ''];
  lines.push(`Run ${when}. Machine: ${machine}. 1-minute load average at the start and after each round: ${loads}.`);
  lines.push('');
  lines.push('Builds, each its own server process with the same flags:', '');
  for (const b of builds) lines.push(`- **${b.name}**: ${b.label}${b.flags ? ` (\`${b.flags}\`)` : ''}`);
  lines.push('');
  lines.push(
    `${settings.rounds} rounds; in each, every scenario is measured on every build in turn (the order of the builds`,
    `alternates from one round to the next), ${settings.seconds} s each after a 1 s warm-up; reads at`,
    `${settings.readConnections} connections, keyed writes at ${settings.writeConnections.join(' and ')}.`,
    `bill/list reads the first page of ${f0(settings.transactions)} seeded transactions; deposits go round`,
    `${f0(settings.depositCards)} cards (and those the create scenario makes).`,
    '',
  );
  lines.push('## Server CPU per request (µs, median of the rounds, with their range)', '');
  const head = ['scenario', 'conns', 'bare', ...builds.map((b) => b.name)];
  for (const b of baselines) head.push(`${self.name} / ${b.name}`);
  for (const b of builds) head.push(`${b.name} / bare`);
  lines.push(
    `| ${head.join(' | ')} |`,
    `|---|${head
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
  );
  for (const s of scenarios.filter((x) => !x.bare)) {
    const bare = bareCpu(s.connections);
    const row = [s.name, s.connections, f0(bare)];
    for (const b of builds) {
      const xs = cpu(s, b);
      row.push(xs.length ? `${f0(median(xs))} (${range(xs)})` : '-');
    }
    for (const b of baselines) {
      const mine = cpu(s, self);
      const theirs = cpu(s, b);
      const perRound = mine.map((x, i) => x / theirs[i]).filter(Number.isFinite);
      row.push(perRound.length ? `**${f2(median(perRound))}** (${perRound.map(f2).join(', ')})` : '-');
    }
    for (const b of builds) row.push(`${f2(median(cpu(s, b)) / bare)}x`);
    lines.push(`| ${row.join(' | ')} |`);
  }
  lines.push('');
  // A floor's figure counts only when every answer was a 2xx: a cheap error answer would lower it.
  const clean = (s) => (results.get(key(s))?.get('bare') ?? []).every((m) => m.non2xx + m.errors === 0);
  const floorCpuOf = (s) => (clean(s) ? median(cpu(s, { name: 'bare' })) : NaN);
  const floor = scenarios.find((x) => x.floor === 'read');
  if (floor) {
    const floorCpu = floorCpuOf(floor);
    const bare = bareCpu(floor.connections);
    const assetList = median(cpu({ name: 'wallet/assetList', connections: floor.connections }, self));
    lines.push(
      `The floor route (bench/lib/floor-server.mjs: the bare route plus the key header, the JSON body, two indexed`,
      `SQLite reads and the assetList answer) cost ${f0(floorCpu)} µs per request at ${floor.connections} connections,`,
      `${f2(floorCpu / bare)}x the bare route: what any faithful read costs on this stack before authentication,`,
      `validation, logging and the request log.` +
        (Number.isFinite(assetList)
          ? ` ${self.name}'s wallet/assetList is ${f2(assetList / floorCpu)}x the floor.`
          : ''),
      '',
    );
  }
  const writeFloors = scenarios.filter((x) => x.floor === 'write');
  if (writeFloors.length) {
    const parts = writeFloors.map((w) => {
      const ms = results.get(key(w))?.get('bare') ?? [];
      const floorCpu = floorCpuOf(w);
      const deposit = median(cpu({ name: 'card/deposit, keyed', connections: w.connections }, self));
      return (
        `at ${w.connections} connections ${f0(floorCpu)} µs, ${f2(floorCpu / bareCpu(w.connections))}x the bare ` +
        `route, p99 ${f0(median(ms.map((m) => m.p99)))} ms` +
        (Number.isFinite(deposit) ? ` (${self.name}'s card/deposit ${f2(deposit / floorCpu)}x it)` : '')
      );
    });
    lines.push(
      `The keyed-write floor (the same file: the headers, the body and its SHA-256, the key's lookup, the two ledger`,
      `sides, the transfer, the event and the idempotency record, each write in a savepoint of a commit shared by one`,
      `event-loop turn) cost ${parts.join('; ')}.`,
      '',
    );
  }
  lines.push(
    'Server CPU is user + system time of the whole server process (every thread) from /proc/<pid>/stat over the',
    'measured seconds, divided by the requests answered: on a shared machine it moves far less than req/s. A ratio',
    "to the bare route of 2x means the scenario would reach half the bare route's throughput on a core of its own.",
    '',
  );
  lines.push('## Throughput and latency (medians of the rounds)', '');
  const h2 = ['scenario', 'conns', 'build', 'req/s', 'p50 ms', 'p99 ms', 'main thread µs/req', 'non-2xx + errors'];
  lines.push(
    `| ${h2.join(' | ')} |`,
    `|---|${h2
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
  );
  for (const s of scenarios) {
    for (const b of s.bare ? [{ name: 'bare' }] : builds) {
      const ms = results.get(key(s))?.get(b.name) ?? [];
      if (ms.length === 0) continue;
      const med = (f) => median(ms.map(f));
      lines.push(
        `| ${s.name} | ${s.connections} | ${s.bare ? 'reference' : b.name} | ${f0(med((m) => m.rps))} | ${f0(med((m) => m.p50))} | ${f0(
          med((m) => m.p99),
        )} | ${f0(med((m) => m.mainThreadUsPerReq))} | ${ms.reduce((n, m) => n + m.non2xx + m.errors, 0)} |`,
      );
    }
  }
  lines.push('');
  lines.push(
    '"main thread" is the CPU of the thread that serves requests alone; the rest of the server CPU ran on worker',
    'threads (the WAL checkpointer, and whatever else a build moves off the request thread).',
    '',
  );
  if (notes.length) lines.push('Notes:', '', ...notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}
