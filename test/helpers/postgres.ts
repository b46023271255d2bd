import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { openPostgres } from '../../src/store/db.js';
import type { PostgresStore } from '../../src/store/postgres.js';
import type { Db, Params, Store, TransactionOptions } from '../../src/store/seam.js';

// A test's own PostgreSQL database, copied from the run's migrated template (test/setup/postgres.ts), when the run
// is on PostgreSQL (TEST_STORE=postgres). The store is handed over at once and opens behind it, so a test sandbox
// is made synchronously on either store.

/** Whether this run's sandboxes are on PostgreSQL. */
export const onPostgres = process.env.TEST_STORE === 'postgres';

/** `work` on a connection of its own to the database at `url`, closed after it. */
const onConnection = async <T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** `work` on the run's server, connected to its `postgres` database (to make and drop test databases). */
const admin = <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => onConnection(inject('postgresUrl'), work);

/**
 * A database copied from the template: a fresh one for `:memory:`; for a file path, the one that path names for the
 * rest of the run (a test that closes its sandbox and opens another on the same file finds its rows again).
 */
async function testDatabase(dbPath: string): Promise<{ url: string; drop(): Promise<void> }> {
  const fresh = dbPath === ':memory:';
  const name = fresh
    ? `t_${randomBytes(8).toString('hex')}`
    : `f_${createHash('sha1').update(dbPath).digest('hex').slice(0, 20)}`;
  try {
    await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${inject('postgresTemplate')}`));
  } catch (err) {
    // 42P04: the file's database exists already (made by an earlier sandbox on the same path).
    if (fresh || (err as { code?: string }).code !== '42P04') throw err;
  }
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: fresh
      ? () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined)
      : async () => {},
  };
}

/** A fresh copy of the template: its name, for a test that reaches it its own way (through a proxy). */
export async function postgresCopy(): Promise<{ name: string; port: number; url: string; drop(): Promise<void> }> {
  const { url, drop } = await testDatabase(':memory:');
  const u = new URL(url);
  return { name: u.pathname.slice(1), port: Number(u.port), url, drop };
}

/** An empty database (never migrated) on the run's server, for a test of what a first start does to one. */
export async function postgresEmpty(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `e_${randomBytes(8).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** The first column of the first row a statement answers on the database at `url`, read on a connection of its own. */
export async function peekPostgres<T>(url: string, sql: string): Promise<T | undefined> {
  const { rows } = await onConnection(url, (client) => client.query<Record<string, T>>(sql));
  return rows[0] ? Object.values(rows[0])[0] : undefined;
}

/**
 * A store on the database `dbPath` stands for (testDatabase), usable at once (its statements wait for it to open); a
 * fresh one is dropped at close.
 */
export function lazyPostgresStore(dbPath: string): Store {
  // A URL is a database the test made itself (postgresCopy), reached the way the test chose.
  const database = /^postgres(ql)?:/.test(dbPath)
    ? Promise.resolve({ url: dbPath, drop: async () => {} })
    : testDatabase(dbPath);
  const opening = database.then(async (db) => ({
    db,
    store: await openPostgres(db.url, { ...DEFAULT_CONFIG.postgres, maxConnections: 4 }),
  }));
  const watched: [readonly string[], () => void][] = [];
  let closed = false;
  let live: PostgresStore | undefined;
  const on = async (): Promise<PostgresStore> => (await opening).store;
  opening
    .then(({ store }) => {
      live = store;
      for (const [tables, onWrite] of watched) store.watchWrites(tables, onWrite);
    })
    .catch(() => undefined);
  const store: Store = {
    dialect: 'postgres',
    inTransaction: false,
    where: "a test database on the run's PostgreSQL",
    get open() {
      return !closed;
    },
    get: async <T>(sql: string, params?: Params) => (await on()).get<T>(sql, params),
    all: async <T>(sql: string, params?: Params) => (await on()).all<T>(sql, params),
    value: async <T>(sql: string, params?: Params) => (await on()).value<T>(sql, params),
    column: async <T>(sql: string, params?: Params) => (await on()).column<T>(sql, params),
    run: async (sql: string, params?: Params) => (await on()).run(sql, params),
    transaction: async <T>(work: (tx: Db) => Promise<T>, options?: TransactionOptions) =>
      (await on()).transaction(work, options),
    detached: (work) => (live ? live.detached(work) : work()),
    watchWrites(tables, onWrite) {
      if (live) live.watchWrites(tables, onWrite);
      else watched.push([tables, onWrite]);
    },
    async close() {
      if (closed) return;
      closed = true;
      const { db, store: s } = await opening;
      await s.close();
      await db.drop();
    },
  };
  return store;
}
