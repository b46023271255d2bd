import type { TestContext } from 'vitest';
import { cleanEnv, ensureBuilt, startServe, type ServeProcess } from './cli-process.js';
import { post } from './http-call.js';
import { freePort } from './loopback.js';
import { onPostgres, postgresCopy, postgresEmpty } from './postgres.js';

// Several real `serve` processes (the built command) on one PostgreSQL database of the run's server, each on its
// own loopback port: the deployment "many instances, one sandbox" as a partner's load balancer sees it. Each
// instance can be stopped (SIGTERM), killed (SIGKILL) and started again on the same port, so its URL stays valid.
// A run whose store is SQLite skips the test, saying why: one SQLite file is served by one process.

const NEEDS_POSTGRES =
  'several instances share one PostgreSQL database: the run starts one with TEST_STORE=postgres (the "postgres" project)';

const INSTANCES_ADMIN_TOKEN = 'instances-admin-token';

interface Instance {
  /** `http://127.0.0.1:PORT`: the same after a restart. */
  readonly url: string;
  /** The process id of the running process (a new one after a restart). */
  readonly pid: number;
  /** The running process: its output, its log lines, its exit. */
  readonly process: ServeProcess;
  /** Sends `signal` (default SIGKILL) and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Starts the instance again (killed first if it still runs), on the same port and database. */
  restart(): Promise<void>;
}

export interface Instances {
  /** Each instance's URL, in order. */
  readonly urls: string[];
  readonly instances: Instance[];
  /** The database the instances share, as a URL a test may read beside them. */
  readonly db: string;
  readonly adminToken: string;
  /** The ready account's key, printed by the one instance that made it (undefined if none printed one). */
  readonly apiKey: string | undefined;
  /** A new account through the operator API of the first instance: its id and API key. */
  newAccount(balance?: number): Promise<{ accountId: string; apiKey: string }>;
  /** Kills every instance still running and drops the database. */
  close(): Promise<void>;
}

export interface InstancesOptions {
  /** Extra environment of every instance (over SANDBOX_ADMIN_TOKEN and the database). */
  env?: Record<string, string>;
  /** Extra `serve` flags of every instance. */
  args?: string[];
  /**
   * `migrated` (default): a copy of the run's migrated template; `empty`: a database no release has touched, so the
   * instances' own start migrates it.
   */
  database?: 'migrated' | 'empty';
  /** Start every instance at once (default: the first alone, then the others together). */
  together?: boolean;
}

const KEY_LINE = /API key \(shown once, keep it\): (\S+)/;

/**
 * Starts `n` instances on one fresh database and waits until each listens. On a SQLite run the test is skipped with
 * its reason. Call `close()` after the test (afterEach).
 */
export async function startInstances(
  ctx: Pick<TestContext, 'skip'>,
  n: number,
  opts: InstancesOptions = {},
): Promise<Instances> {
  if (!onPostgres) return ctx.skip(NEEDS_POSTGRES);
  ensureBuilt();
  const database = opts.database === 'empty' ? await postgresEmpty() : await postgresCopy();
  const ports = await Promise.all(Array.from({ length: n }, () => freePort()));
  const env = cleanEnv({
    SANDBOX_ADMIN_TOKEN: INSTANCES_ADMIN_TOKEN,
    SANDBOX_DB_POOL: '4',
    ...opts.env,
  });
  const running: (ServeProcess & { url: string })[] = [];
  const start = async (i: number) => {
    running[i] = await startServe(
      ['serve', '--host', '127.0.0.1', '--port', String(ports[i]), '--db', database.url, ...(opts.args ?? [])],
      { env },
    );
  };
  // A first start only: another process may take the free port between its choice and the bind; then another port.
  const firstStart = async (i: number) => {
    for (let tries = 1; ; tries++) {
      try {
        return await start(i);
      } catch (err) {
        if (tries >= 3 || !String(err).includes('EADDRINUSE')) throw err;
        ports[i] = await freePort();
      }
    }
  };
  const alive = (p: ServeProcess | undefined) =>
    p !== undefined && p.child.exitCode === null && p.child.signalCode === null;
  const kill = async (i: number, signal: NodeJS.Signals = 'SIGKILL') => {
    const p = running[i]!;
    if (alive(p)) p.child.kill(signal);
    return await p.exited;
  };
  const instances: Instance[] = ports.map((_, i) => ({
    get url() {
      return `http://127.0.0.1:${ports[i]}`;
    },
    get pid() {
      return running[i]!.child.pid!;
    },
    get process() {
      return running[i]!;
    },
    kill: (signal) => kill(i, signal),
    async restart() {
      await kill(i);
      await start(i);
    },
  }));
  const close = async () => {
    await Promise.all(running.map((p, i) => (alive(p) ? kill(i) : undefined)));
    await database.drop();
  };
  try {
    if (opts.together) await Promise.all(ports.map((_, i) => firstStart(i)));
    else {
      await firstStart(0);
      await Promise.all(ports.slice(1).map((_, i) => firstStart(i + 1)));
    }
  } catch (err) {
    await close();
    throw err;
  }
  const printed = running.map((p) => KEY_LINE.exec(p.stdout())?.[1]).filter((k) => k !== undefined);
  return {
    urls: instances.map((i) => i.url),
    instances,
    db: database.url,
    adminToken: INSTANCES_ADMIN_TOKEN,
    apiKey: printed[0],
    async newAccount(balance = 100) {
      const res = await fetch(`${instances[0]!.url}/admin/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${INSTANCES_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ balance, depositAddress: null }),
      });
      if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${await res.text()}`);
      return (await res.json()) as { accountId: string; apiKey: string };
    },
    close,
  };
}

/** What a keyed call to an instance answered: its status, whether it replayed, its Retry-After, its parsed body. */
export interface KeyedAnswer {
  status: number;
  replayed: boolean;
  retryAfter: string | null;
  body: Record<string, any>;
}

/** POST `body` to an instance with the API key and, when given, an Idempotency-Key. */
export async function postTo(
  url: string,
  path: string,
  apiKey: string,
  body: unknown = {},
  key?: string,
): Promise<KeyedAnswer> {
  const res = await post(url, apiKey, path, body, key === undefined ? {} : { 'Idempotency-Key': key });
  return {
    status: res.status,
    replayed: res.headers.get('idempotent-replayed') === 'true',
    retryAfter: res.headers.get('retry-after'),
    body: res.body as Record<string, any>,
  };
}

/** The live instances an instance counts (its `sandbox_instances_live` metric): each grants its share of a bound. */
export async function liveInstances(url: string, adminToken: string): Promise<number> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } });
  const line = (await res.text()).split('\n').find((l) => l.startsWith('sandbox_instances_live '));
  return Number(line?.split(' ')[1]);
}
