import { randomBytes } from 'node:crypto';
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

const admin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: inject('postgresUrl') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** A fresh database copied from the template: its URL, and how to drop it. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_${randomBytes(8).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${inject('postgresTemplate')}`));
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** A store on a fresh database of its own, usable at once (its statements wait for it to open), dropped at close. */
export function lazyPostgresStore(): Store {
  const opening = freshDatabase().then(async (db) => ({
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
