// Summarises the .cpuprofile files `BENCH_PROFILE=1 npm run bench` leaves in bench/tmp/prof: the functions with
// the most self time, and with `--inclusive`, the most time including callees.
// Usage: node bench/profile-summary.mjs [dir] [--inclusive] [--top N]
import { readFileSync, readdirSync } from 'node:fs';

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? 'bench/tmp/prof';
const inclusive = args.includes('--inclusive');
const top = Number(args[args.indexOf('--top') + 1]) || 30;

const label = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}`;

for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const timeById = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    timeById.set(id, (timeById.get(id) ?? 0) + dt);
    total += dt;
  });
  const sums = new Map();
  for (const [id, dt] of timeById) {
    if (!inclusive) {
      const k = label(byId.get(id));
      sums.set(k, (sums.get(k) ?? 0) + dt);
      continue;
    }
    const seen = new Set();
    for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
      const k = label(byId.get(cur));
      if (seen.has(k)) continue;
      seen.add(k);
      sums.set(k, (sums.get(k) ?? 0) + dt);
    }
  }
  console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled, ${inclusive ? 'inclusive' : 'self'} time`);
  for (const [k, t] of [...sums].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(t / 1000).toFixed(0).padStart(8)} ms ${((100 * t) / total).toFixed(1).padStart(5)} %  ${k}`);
  }
}
