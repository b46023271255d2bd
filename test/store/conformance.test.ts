import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { openPostgres, openSqlite } from '../../src/store/db.js';
import { NAMED_IN_ARRAY, type Db, type Store } from '../../src/store/seam.js';
import type { PostgresOptions } from '../../src/store/postgres.js';
import { lazyPostgresStore, onPostgres, postgresCopy } from '../helpers/postgres.js';

// The store conformance suite: what every function of src/store/ counts on from the seam (store/seam.ts), on the
// run's store (SQLite, or PostgreSQL on a TEST_STORE=postgres run; `npm test` runs this file on both). Each rule is
// checked through the seam alone, against values the test wrote itself: no store function is the oracle.

const runOn = onPostgres ? 'PostgreSQL' : 'SQLite';
let store: Store;

beforeEach(() => {
  store = onPostgres ? lazyPostgresStore(':memory:') : openSqlite(':memory:');
});
afterEach(async () => {
  await store.close();
});

const metaValue = (db: Db, key: string) => db.value<string>('SELECT value FROM meta WHERE key = ?', [key]);
const setMeta = (db: Db, key: string, value: string) =>
  db.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
    key,
    value,
  ]);

/** A promise and the function that settles it: work held open until the test says so. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe(`Store conformance on ${runOn}`, () => {
  it('money is integer micro-units: amounts up to 2^53 - 1 read back exact, alone and summed, as numbers', async () => {
    const big = Number.MAX_SAFE_INTEGER - 1;
    expect(await store.value('SELECT CAST(? AS BIGINT)', [big])).toBe(big);
    const sum = await store.value(
      'SELECT SUM(v) FROM (SELECT CAST(? AS BIGINT) AS v UNION ALL SELECT CAST(? AS BIGINT) AS v) t',
      [big - 5, 5],
    );
    expect(sum).toBe(big);
    expect(typeof sum).toBe('number');
    const count = await store.value('SELECT COUNT(*) FROM meta');
    expect(typeof count).toBe('number');
  });

  it('a transaction that throws leaves nothing behind, and its error reaches the caller', async () => {
    await expect(
      store.transaction(async (tx) => {
        await setMeta(tx, 'gone', '1');
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(await metaValue(store, 'gone')).toBeUndefined();
  });

  it('a savepoint that throws rolls back alone; the transaction around it commits the rest', async () => {
    await store.transaction(async (tx) => {
      await setMeta(tx, 'kept', 'a');
      await tx
        .transaction(async (inner) => {
          await setMeta(inner, 'undone', 'b');
          await setMeta(inner, 'kept', 'overwritten');
          throw new Error('inner');
        })
        .catch(() => undefined);
      expect(await metaValue(tx, 'undone')).toBeUndefined();
    });
    expect(await metaValue(store, 'kept')).toBe('a');
    expect(await metaValue(store, 'undone')).toBeUndefined();
  });

  it("no statement outside a transaction sees the transaction's writes before it commits", async () => {
    const hold = gate();
    const written = gate();
    const tx = store.transaction(async (t) => {
      await setMeta(t, 'pending', 'new');
      written.open();
      await hold.opened;
    });
    await written.opened;
    let settled = false;
    const outside = store.detached(() => metaValue(store, 'pending')).finally(() => (settled = true));
    if (store.dialect === 'postgres') {
      // Another connection: answered at once, from before the transaction.
      expect(await outside).toBeUndefined();
      hold.open();
    } else {
      // One connection: the read waits for the transaction to end, then sees what it committed.
      for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      hold.open();
      expect(await outside).toBe('new');
    }
    await tx;
    expect(await metaValue(store, 'pending')).toBe('new');
  });

  it("an account's transactions run one after another: read, yield, write never loses an update", async () => {
    await setMeta(store, 'counter', '0');
    const increments = 12;
    await Promise.all(
      Array.from({ length: increments }, () =>
        store.transaction(
          async (tx) => {
            const n = Number(await metaValue(tx, 'counter'));
            await new Promise((resolve) => setImmediate(resolve));
            await setMeta(tx, 'counter', String(n + 1));
          },
          { account: 'acct_conformance' },
        ),
      ),
    );
    expect(await metaValue(store, 'counter')).toBe(String(increments));
  });

  it('run answers how many rows the statement changed', async () => {
    for (const k of ['c_1', 'c_2', 'c_3', 'd_1']) await setMeta(store, k, 'x');
    expect(await store.run("UPDATE meta SET value = 'y' WHERE key LIKE 'c\\_%' ESCAPE '\\'")).toBe(3);
    expect(await store.run("DELETE FROM meta WHERE key = 'none'")).toBe(0);
  });

  it('named and positional parameters bind alike; a named one inside an array is refused', async () => {
    await setMeta(store, 'p', 'v');
    expect(await store.value('SELECT value FROM meta WHERE key = @key', { key: 'p' })).toBe('v');
    expect(await store.value('SELECT value FROM meta WHERE key = ?', ['p'])).toBe('v');
    await expect(store.value('SELECT value FROM meta WHERE key = @key', [{ key: 'p' }])).rejects.toThrow(
      NAMED_IN_ARRAY,
    );
  });

  it('a list parameter (a JSON array read with json_each) selects exactly the listed rows', async () => {
    for (const k of ['l_a', 'l_b', 'l_c']) await setMeta(store, k, k);
    const keys = await store.column<string>(
      'SELECT key FROM meta WHERE key IN (SELECT value FROM json_each(?)) ORDER BY key',
      [JSON.stringify(['l_c', 'l_a', 'l_z'])],
    );
    expect(keys).toEqual(['l_a', 'l_c']);
  });

  it('LIKE ignores the case of ASCII letters, and text sorts by its bytes', async () => {
    for (const k of ['Zeta', 'alpha', 'Beta', '_x']) await setMeta(store, k, k);
    expect(await store.column<string>("SELECT key FROM meta WHERE key LIKE '%ETA' ORDER BY key")).toEqual([
      'Beta',
      'Zeta',
    ]);
    expect(await store.column<string>('SELECT key FROM meta ORDER BY key')).toEqual(['Beta', 'Zeta', '_x', 'alpha']);
  });

  it('value and get of one statement text answer a value and a row, in either order', async () => {
    await setMeta(store, 'both', 'v');
    const sql = 'SELECT value FROM meta WHERE key = ?';
    expect(await store.value(sql, ['both'])).toBe('v');
    expect(await store.get(sql, ['both'])).toEqual({ value: 'v' });
    expect(await store.column(sql, ['both'])).toEqual(['v']);
    expect(await store.all(sql, ['both'])).toEqual([{ value: 'v' }]);
  });

  it('an upsert with RETURNING answers the row as written, first insert and then update', async () => {
    const next = (scope: string) =>
      store.value<number>(
        'INSERT INTO seq_counters (scope, value) VALUES (?, 1) ON CONFLICT (scope) DO UPDATE SET value = seq_counters.value + 1 RETURNING value',
        [scope],
      );
    expect([await next('conf'), await next('conf'), await next('conf')]).toEqual([1, 2, 3]);
  });

  it('LIMIT -1 with an OFFSET answers every row after the offset', async () => {
    for (const k of ['o_1', 'o_2', 'o_3', 'o_4']) await setMeta(store, k, k);
    expect(
      await store.column<string>("SELECT key FROM meta WHERE key LIKE 'o%' ORDER BY key LIMIT -1 OFFSET 1"),
    ).toEqual(['o_2', 'o_3', 'o_4']);
  });
});

const POSTGRES_ONLY = 'a rule of the PostgreSQL driver alone (`npm test` runs this file in its "postgres" project too)';

/** A store on a database of its own, with the pool's options changed as given; closed and dropped after `use`. */
async function withOwnPostgres(options: Partial<PostgresOptions>, use: (store: Store) => Promise<void>): Promise<void> {
  const copy = await postgresCopy();
  const own = await openPostgres(copy.url, { ...DEFAULT_CONFIG.postgres, ...options });
  try {
    await use(own);
  } finally {
    await own.close();
    await copy.drop();
  }
}

describe('Store conformance on PostgreSQL only', () => {
  it('a statement on the store inside one of its transactions is refused, not left to wait for a connection', async ({
    skip,
  }) => {
    if (!onPostgres) return skip(POSTGRES_ONLY);
    await expect(store.transaction(async () => metaValue(store, 'x'))).rejects.toThrow(
      /inside one of its transactions/,
    );
  });

  it("a transaction its holder left idle past the bound is ended by the server: the account's lock passes to another, and the idle one commits nothing", async ({
    skip,
  }) => {
    if (!onPostgres) return skip(POSTGRES_ONLY);
    // Statements may wait 60 s for a lock: only the server ending the idle transaction lets the other one through.
    await withOwnPostgres({ statementTimeoutMs: 60_000, idleInTransactionTimeoutMs: 200 }, async (stalls) => {
      const resume = gate();
      const inside = gate();
      const stalled = stalls
        .transaction(
          async (tx) => {
            await setMeta(tx, 'stalled', 'wrote');
            inside.open();
            // The holder stops here, its transaction open and the account's lock held, like a paused instance.
            await resume.opened;
            await setMeta(tx, 'stalled', 'resumed');
          },
          { account: 'acct_stalled' },
        )
        .catch((err: Error) => err);
      await inside.opened;
      await stalls.transaction((tx) => setMeta(tx, 'other', 'took the lock'), { account: 'acct_stalled' });
      resume.open();
      expect(await stalled).toMatchObject({ name: 'StoreUnavailable', message: /idle too long/ });
      expect(await metaValue(stalls, 'stalled')).toBeUndefined();
      expect(await metaValue(stalls, 'other')).toBe('took the lock');
      // The database was not lost: the very next statement runs.
      expect(await stalls.value('SELECT 1')).toBe(1);
    });
  });

  it('a pool whose every connection stays taken answers StoreUnavailable (a 503), and serves again once one is free', async ({
    skip,
  }) => {
    if (!onPostgres) return skip(POSTGRES_ONLY);
    await withOwnPostgres({ maxConnections: 1, connectTimeoutMs: 200 }, async (small) => {
      const hold = gate();
      const held = gate();
      const holding = small.transaction(async () => {
        held.open();
        await hold.opened;
      });
      await held.opened;
      const refused = await small.detached(() => small.value('SELECT 1')).catch((err: Error) => err);
      expect(refused).toMatchObject({ name: 'StoreUnavailable', message: /no connection free/ });
      hold.open();
      await holding;
      // Busy is not down: the very next statement runs.
      expect(await small.value('SELECT 1')).toBe(1);
    });
  });
});
