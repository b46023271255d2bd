import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, rmdirSync, statSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WAIT_LIMIT_MS } from './wait.js';

// The compiled command (`dist/`) as a child process, run exactly as a partner runs it: built when stale, started,
// its output collected, waited on, stopped.

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/src/cli/main.js');

function newestMtimeMs(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtimeMs(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const isFresh = () => existsSync(MAIN) && statSync(MAIN).mtimeMs >= newestMtimeMs(join(ROOT, 'src'));

/**
 * Builds `dist/` when a source file is newer than it (`npm test` has just built, so then this costs nothing).
 * A lock directory keeps two test files from compiling into the same folder at once.
 */
export function ensureBuilt(): void {
  if (isFresh()) return;
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  const lock = join(ROOT, 'dist', '.build-lock');
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() - started > 60_000) throw new Error(`build lock ${lock} held for over a minute`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (!isFresh()) {
      // The project's own build (tsc, then the bundled command), so the steps live in one place.
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
    }
  } finally {
    rmdirSync(lock);
  }
}

/** The environment without any SANDBOX_* variable of the machine running the tests. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('SANDBOX_')) env[k] = v;
  return { ...env, ...extra };
}

export interface ServeProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** JSON log lines seen so far. */
  logs(): Record<string, unknown>[];
  /** Resolves with the first log record matching, or rejects after `timeoutMs`. */
  waitForLog(match: (r: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves with the first match of `re` in stdout, or rejects on exit or after `timeoutMs`. */
  waitForOutput(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `node dist/src/cli/main.js <args>` (or any command) and collects its output. */
export function spawnCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; command?: string; detached?: boolean } = {},
): ServeProcess {
  const command = opts.command ?? process.execPath;
  const child = spawn(command, opts.command ? args : [MAIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: opts.env ?? cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    // A wrapper such as npx does not pass signals on: its own process group lets the test stop it whole.
    detached: opts.detached ?? false,
  });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of waiters) w();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.on('exit', (code, signal) => {
      for (const w of waiters) w();
      res({ code, signal });
    }),
  );
  const logs = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const waitFor = <T>(find: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((res, rej) => {
      const check = () => {
        const found = find();
        if (found !== undefined) {
          cleanup();
          res(found);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          cleanup();
          rej(new Error(`process exited before ${what}\nstdout: ${out}\nstderr: ${err}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        rej(new Error(`timed out waiting for ${what}\nstdout: ${out}\nstderr: ${err}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    logs,
    exited,
    waitForLog: (match, timeoutMs = WAIT_LIMIT_MS) =>
      waitFor(() => logs().find(match), 'the expected log line', timeoutMs),
    waitForOutput: (re, timeoutMs = WAIT_LIMIT_MS) =>
      waitFor(() => re.exec(out) ?? undefined, `output ${re}`, timeoutMs),
  };
}

/** Starts `serve` and waits until it logs its URL. */
export async function startServe(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; command?: string; detached?: boolean; timeoutMs?: number } = {},
): Promise<ServeProcess & { url: string }> {
  const proc = spawnCli(args, opts);
  try {
    const listening = await proc.waitForLog((r) => r.msg === 'card sandbox listening', opts.timeoutMs);
    return { ...proc, url: listening.url as string };
  } catch (e) {
    // A server that never said it listens is stopped here, so it cannot outlive its test and write into a temp
    // folder the test has already removed.
    const { child } = proc;
    if (child.exitCode === null && child.signalCode === null) {
      if (opts.detached) process.kill(-child.pid!, 'SIGKILL');
      else child.kill('SIGKILL');
      await proc.exited;
    }
    throw e;
  }
}

/** Runs the CLI to its end: exit status and output. */
export async function runCli(
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawnCli(args, opts);
  const { code } = await proc.exited;
  // 'exit' can come before the pipes are drained.
  await Promise.all(
    [proc.child.stdout, proc.child.stderr].map((s) =>
      s!.readableEnded ? null : new Promise((r) => s!.once('end', r)),
    ),
  );
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

/** A compiled `serve` on a database (a file, or `:memory:`) at a port of its choosing, `env` on a clean environment. */
export async function serveOn(db: string, args: string[] = [], env: Record<string, string> = {}) {
  return await startServe(['serve', '--port', '0', '--db', db, ...args], { env: cleanEnv(env) });
}

/** A compiled `serve` on :memory: with a known key, for the developer-tool tests. */
export async function startSandbox(apiKey: string, extraEnv: Record<string, string> = {}) {
  return await serveOn(':memory:', [], { SANDBOX_API_KEY: apiKey, ...extraEnv });
}

/** SIGTERM and wait for the exit. */
export async function stop(proc: ServeProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill('SIGTERM');
  return proc.exited;
}
