import pg from 'pg';
import type { Db, Params, Store, TransactionOptions } from '../../src/store/seam.js';

// Counts what a request costs the store in round trips (the time a request waits on the network and the database's
// CPU go with them, and unlike CPU figures on a busy machine, the count is the same every run). On PostgreSQL, every
// query the driver sends on a connection (`countPostgresQueries`): a statement, BEGIN with the account's lock and the
// reads the transaction opens with (one simple query, store/postgres.ts), COMMIT, a savepoint. On SQLite, where a
// statement is a call into the library, every statement of the store (`countedStore`), BEGIN and COMMIT included.

/** The statements a store ran, in order, since the last `reset`. */
export class RoundTrips {
  readonly statements: string[] = [];

  get count(): number {
    return this.statements.length;
  }

  reset(): void {
    this.statements.length = 0;
  }

  note(sql: string): void {
    this.statements.push(sql.replace(/\s+/g, ' ').trim());
  }
}

function counted(db: Db, trips: RoundTrips): Db {
  const statement =
    <R>(call: (sql: string, params?: Params) => Promise<R>) =>
    (sql: string, params?: Params): Promise<R> => {
      trips.note(sql);
      return call.call(db, sql, params);
    };
  return {
    get dialect() {
      return db.dialect;
    },
    get inTransaction() {
      return db.inTransaction;
    },
    get: statement(db.get) as Db['get'],
    all: statement(db.all) as Db['all'],
    value: statement(db.value) as Db['value'],
    column: statement(db.column) as Db['column'],
    run: statement(db.run),
    async transaction<T>(work: (tx: Db) => Promise<T>, options?: TransactionOptions): Promise<T> {
      const nested = db.inTransaction;
      trips.note(nested ? 'SAVEPOINT' : options?.account === undefined ? 'BEGIN' : 'BEGIN (account lock)');
      try {
        return await db.transaction((tx) => work(counted(tx, trips)), options);
      } finally {
        trips.note(nested ? 'RELEASE (or ROLLBACK TO)' : 'COMMIT (or ROLLBACK)');
      }
    },
  };
}

/** `store` with every statement it runs, in a transaction or not, noted in `trips`. */
export function countedStore(store: Store, trips: RoundTrips): Store {
  return {
    ...counted(store, trips),
    get where() {
      return store.where;
    },
    get open() {
      return store.open;
    },
    watchWrites: (tables, onWrite) => store.watchWrites(tables, onWrite),
    detached: (work) => store.detached(work),
    close: () => store.close(),
  };
}

/** Notes every query of every PostgreSQL connection of this process in `trips`, until the answer is called. */
export function countPostgresQueries(trips: RoundTrips): () => void {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    trips.note(typeof config === 'string' ? config : (config.text ?? ''));
    return query.apply(this, args);
  };
  return () => {
    proto.query = query;
  };
}
