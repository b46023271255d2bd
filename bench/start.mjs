// How long `npm start` takes to answer, with dist/ fresh: from spawning the command to the first 200 on /healthz,
// beside `node dist/src/cli/main.js serve` (the same server without npm), alternating, ROUNDS rounds (5). Prints the
// median, min, max and every figure, the CPU the server process used until then (Linux), and the machine's load.
// Run `npm run build` first (a stale dist/ makes the first `npm start` build). Uses ./data/sandbox.db, as npm start.
//   node bench/start.mjs
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './lib/procs.mjs';
import { cpuSeconds } from './lib/load.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const port = await freePort();
const VARIANTS = {
  'npm start': ['npm', ['start', '--silent', '--', '--port', String(port)]],
  'node dist/src/cli/main.js serve': [
    process.execPath,
    ['dist/src/cli/main.js', 'serve', '--db', './data/sandbox.db', '--port', String(port)],
  ],
};

/** User + system CPU of a process so far, in ms (Linux /proc; undefined elsewhere). */
function cpuMs(pid) {
  const seconds = cpuSeconds(pid);
  return Number.isNaN(seconds) ? undefined : Math.round(seconds * 1000);
}

async function once([command, args]) {
  const started = performance.now();
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return { ms: performance.now() - started, cpu: cpuMs(child.pid) };
      if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}: ${stderr}`);
      if (performance.now() - started > 60_000) throw new Error(`${command}: no answer in 60 s`);
      // Polls gently: on 2 busy cores a tight loop would take the CPU the server needs to start.
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    if (child.exitCode === null) {
      process.kill(-child.pid, 'SIGTERM');
      await new Promise((r) => child.on('exit', r));
    }
  }
}

const results = Object.fromEntries(Object.keys(VARIANTS).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, variant] of Object.entries(VARIANTS)) results[name].push(await once(variant));
}
for (const [name, runs] of Object.entries(results)) {
  const ms = runs.map((r) => r.ms).sort((a, b) => a - b);
  const all = runs.map((r) => r.ms.toFixed(0)).join(' ');
  const cpu = runs.map((r) => r.cpu ?? '?').join(' ');
  console.log(
    `${name}: median ${ms[ms.length >> 1].toFixed(0)} ms, ${ms[0].toFixed(0)}-${ms.at(-1).toFixed(0)} (${all}); CPU of the started process ${cpu} ms`,
  );
}
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
