// Cold start: from spawning the process to the first 200 on /healthz, for `node dist/src/cli/main.js serve` and for
// a bare Hono + better-sqlite3 server started the same way (bare-sqlite-server.mjs), alternating round by round so
// both meet the same machine load. Wall time and the CPU the started process used until its first answer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startNode } from './procs.mjs';
import { cpuSeconds } from './load.mjs';

/** User + system CPU of a process so far, in ms (Linux /proc; undefined elsewhere). */
function cpuMs(pid) {
  const seconds = cpuSeconds(pid);
  return Number.isNaN(seconds) ? undefined : Math.round(seconds * 1000);
}

async function once(args, env, port) {
  const s = await startNode(args, { env, healthUrl: `http://127.0.0.1:${port}/healthz` });
  const cpu = cpuMs(s.child.pid);
  await s.stop();
  return { ms: s.startMs, cpu };
}

const VARIANTS = {
  // The defaults of `npm start` (local mode, bootstrap account on an empty database), logs silenced.
  'serve, new database': (dir, i, port) => [
    [
      'dist/src/cli/main.js',
      'serve',
      '--db',
      join(dir, `fresh-${i}.db`),
      '--port',
      String(port),
      '--log-level',
      'warn',
    ],
    {},
  ],
  'serve, existing database': (dir, _i, port) => [
    ['dist/src/cli/main.js', 'serve', '--db', join(dir, 'existing.db'), '--port', String(port), '--log-level', 'warn'],
    {},
  ],
  'bare Hono + better-sqlite3, new database': (dir, i, port) => [
    ['bench/lib/bare-sqlite-server.mjs'],
    { PORT: String(port), DB: join(dir, `bare-${i}.db`) },
  ],
};

const stats = (xs) => {
  const s = [...xs].filter((x) => x !== undefined).sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1], all: xs };
};

/**
 * `rounds` rounds, each starting every variant once (the order rotating); per variant the median, minimum and
 * maximum of wall ms and CPU ms, and the ratio of `serve` on a new database to the bare server (medians).
 */
export async function coldStart(rounds = 5) {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-cold-'));
  const names = Object.keys(VARIANTS);
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(round + k) % names.length];
        const port = await freePort();
        const [args, env] = VARIANTS[name](dir, round, port);
        runs[name].push(await once(args, env, port));
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const out = Object.fromEntries(
    names.map((n) => [n, { ms: stats(runs[n].map((r) => r.ms)), cpu: stats(runs[n].map((r) => r.cpu)) }]),
  );
  const bare = out['bare Hono + better-sqlite3, new database'];
  const serve = out['serve, new database'];
  return { variants: out, ratio: { ms: serve.ms.median / bare.ms.median, cpu: serve.cpu.median / bare.cpu.median } };
}

/** The cold-start section of a report, as Markdown lines. */
export function coldStartLines(cold) {
  const f0 = (x) => (x === undefined ? '?' : x.toFixed(0));
  const lines = ['| server | wall ms, median | min-max | CPU ms, median | min-max |', '|---|---:|---:|---:|---:|'];
  for (const [name, v] of Object.entries(cold.variants)) {
    lines.push(
      `| ${name} | ${f0(v.ms.median)} | ${f0(v.ms.min)}-${f0(v.ms.max)} | ${f0(v.cpu.median)} | ${f0(v.cpu.min)}-${f0(v.cpu.max)} |`,
    );
  }
  const met = cold.ratio.ms <= 2;
  lines.push(
    '',
    `serve on a new database / bare server: **${cold.ratio.ms.toFixed(2)}x** wall, ${cold.ratio.cpu.toFixed(2)}x CPU ` +
      `(target at most 2x wall: ${met ? 'met' : '**missed**'}).`,
  );
  return lines;
}

// `node bench/lib/cold-start.mjs [ROUNDS]`: this section alone, after `npm run build`.
if (import.meta.url === `file://${process.argv[1]}`) {
  const cold = await coldStart(Number(process.argv[2] ?? 10));
  console.log(coldStartLines(cold).join('\n'));
}
