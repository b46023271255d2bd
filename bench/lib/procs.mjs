// Child processes for the bench: the server under test runs in its own process, so autocannon (in this one)
// does not share its event loop. Both still share the machine's 2 cores.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { get } from 'node:http';

/** A port that was free a moment ago (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One GET; resolves with the status code, or 0 when the connection is refused. */
function probe(url) {
  return new Promise((resolve) => {
    const req = get(url, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(1000, () => req.destroy());
  });
}

/** Polls `url` until it answers 200; returns the milliseconds since `startedAt`. */
async function waitForOk(url, startedAt, timeoutMs = 15_000) {
  for (;;) {
    if ((await probe(url)) === 200) return performance.now() - startedAt;
    if (performance.now() - startedAt > timeoutMs) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** Spawns `node <args>` and waits for `healthUrl`; returns the child, its start-up time and a stop function. */
export async function startNode(args, { env = {}, healthUrl, cwd = process.cwd() }) {
  const startedAt = performance.now();
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const ready = waitForOk(healthUrl, startedAt);
  const early = exited.then(({ code, signal }) => {
    throw new Error(`node ${args.join(' ')} exited (${code ?? signal}) before it was ready:\n${stderr}`);
  });
  const startMs = await Promise.race([ready, early]);
  early.catch(() => {});
  return {
    child,
    startMs,
    /** The last 4,000 characters the process wrote to stderr. */
    stderr: () => stderr,
    /** SIGTERM (graceful: lets --cpu-prof write its profile), then waits for the exit. */
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
