import { expect } from 'vitest';
import { listEvents, type StoredEvent } from '../../src/domain/events/outbox.js';
import type { Logger } from '../../src/domain/kernel/logger.js';
import { insertTransaction, type TxnStatus } from '../../src/store/transactions.js';
import type { TestRequest } from './client.js';
import type { Db } from '../../src/store/seam.js';
import { FUNDED_ACCOUNT, type AccountHandle, type TestSandbox } from './sandbox.js';
import { waitFor } from './wait.js';

// Shared steps of the tests: accounts, cards and balances through the partner API, simulation calls, the outbox.

/** The USDT available balance as the partner sees it (decimal string). */
export async function walletAvailable(sb: TestSandbox, key: string): Promise<string> {
  const res = await sb.post(key, '/v1/wallet/assetList', {});
  expect(res.status).toBe(200);
  return res.body.assetList[0].availableAmount as string;
}

/** card/asset's available amount (decimal string). */
export async function cardAvailable(sb: TestSandbox, key: string, cardId: string): Promise<string> {
  const res = await sb.post(key, '/v1/card/asset', { cardId });
  expect(res.status).toBe(200);
  return res.body.availableAmount as string;
}

/** card/asset as the partner sees it. */
export async function cardAsset(sb: TestSandbox, key: string, cardId: string) {
  const res = await sb.post(key, '/v1/card/asset', { cardId });
  return res.body as { availableAmount: string; frozenAmount: string };
}

/** Another account with a 0 % deposit fee (so card credits equal amounts) and a USDT balance. */
export async function fundedAccount(sb: TestSandbox, balance = 1000): Promise<AccountHandle> {
  return sb.account({ ...FUNDED_ACCOUNT, balance });
}

/** A simulation helper call: POST /sandbox/v1/<path>. */
export function sim(sb: TestSandbox, key: string, path: string, body: Record<string, unknown> = {}): TestRequest {
  return sb.post(key, `/sandbox/v1/${path}`, body);
}

/**
 * Holds the account's next request to `path` until the test releases it: a `hold` fault keeps it waiting (a keyed
 * call with its key in flight) until faults/release, so a race is decided by the test, however slow the machine.
 * `held()` resolves once the request is waiting.
 */
export async function holdNext(sb: TestSandbox, acct: AccountHandle, path: string) {
  expect((await sim(sb, acct.apiKey, 'faults', { rules: [{ path, hold: true }] })).status).toBe(200);
  return {
    held: () => waitFor(`a request to ${path} held`, () => sb.deps.heldRequests.heldCount(acct.accountId) > 0),
    release: async () => {
      const res = await sim(sb, acct.apiKey, 'faults/release');
      expect(res.status).toBe(200);
      return res.body.released as number;
    },
  };
}

/** Events of the account, oldest first (what a webhook receiver would have seen, in order). */
export async function eventsOf(sb: TestSandbox, accountId: string, type?: string): Promise<StoredEvent[]> {
  return (await listEvents(sb.deps, accountId, { type, limit: 1000 })).reverse();
}

/** card/create that must succeed; returns the card id. */
export async function newCard(
  sb: TestSandbox,
  key: string,
  amount = 10,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await sb.post(key, '/v1/card/create', { amount, currency: 'USDT', ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.cardId as string;
}

export interface OutboxEvent {
  id: string;
  type: string;
  created: number;
  data: Record<string, unknown>;
}

/** The account's outbox, oldest first, read by SQL. */
export async function outbox(sb: TestSandbox, accountId: string): Promise<OutboxEvent[]> {
  const rows = await sb.deps.store.all<{ id: string; type: string; created_s: number; data: string }>(
    'SELECT id, type, created_s, data FROM events WHERE account_id = ? ORDER BY seq',
    [accountId],
  );
  return rows.map((r) => ({ id: r.id, type: r.type, created: r.created_s, data: JSON.parse(r.data) }));
}

// Tables a refused request may still write: the request log records every request, refused ones included (that is
// its purpose), so it is left out of the snapshot.
const WRITTEN_BY_EVERY_REQUEST = new Set(['request_log']);

/**
 * Every row of every table in the database (every account's, not only the caller's), each table's rows sorted, so a
 * request that changes nothing leaves an equal snapshot and one that inserts, updates or deletes any row does not.
 */
export async function worldSnapshot(sb: TestSandbox): Promise<Record<string, string[]>> {
  const { store } = sb.deps;
  const tables = await store.column<string>(
    store.dialect === 'postgres'
      ? "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name"
      : "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
  );
  const snapshot: Record<string, string[]> = {};
  for (const table of tables) {
    if (WRITTEN_BY_EVERY_REQUEST.has(table)) continue;
    const rows = await store.all(`SELECT * FROM "${table}"`);
    snapshot[table] = rows.map((row) => JSON.stringify(row)).sort();
  }
  return snapshot;
}

/**
 * Inserts `rows` (values in the order of `columns`) into `table`, a few hundred to a statement: test data in bulk, on
 * either store. Called inside a transaction, the rows commit together.
 */
export async function insertRows(db: Db, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  const PER_STATEMENT = 500;
  const one = `(${columns.map(() => '?').join(', ')})`;
  for (let from = 0; from < rows.length; from += PER_STATEMENT) {
    const slice = rows.slice(from, from + PER_STATEMENT);
    await db.run(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${slice.map(() => one).join(', ')}`,
      slice.flat(),
    );
  }
}

/**
 * Makes every insert into `table` (of a row matching `when`, a condition on NEW, if given) fail with `message`: an
 * unexpected store error in the middle of a request, for tests of what a 500 leaves. A trigger, in each store's words.
 */
export async function failInserts(db: Db, table: string, message: string, when?: string): Promise<void> {
  const name = `fail_${table}`;
  if (db.dialect === 'postgres') {
    await db.run(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${message}'; END $$`,
    );
    await db.run(
      `CREATE TRIGGER ${name} BEFORE INSERT ON ${table} FOR EACH ROW ${when ? `WHEN (${when}) ` : ''}EXECUTE FUNCTION ${name}()`,
    );
  } else {
    await db.run(
      `CREATE TRIGGER ${name} BEFORE INSERT ON ${table} ${when ? `WHEN ${when} ` : ''}BEGIN SELECT RAISE(ABORT, '${message}'); END`,
    );
  }
}

/**
 * Sends a request that must be refused with `status` and leave the database as it was (a failed request changes
 * nothing); returns the answer for the caller's checks of its body.
 */
export async function expectRefusedUnchanged<R extends { status: number; body: unknown }>(
  sb: TestSandbox,
  status: number,
  send: () => PromiseLike<R>,
): Promise<R> {
  const before = await worldSnapshot(sb);
  const res = await send();
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(await worldSnapshot(sb)).toEqual(before);
  return res;
}

/**
 * Double entry, checked from the tables themselves: the account's ledger balances sum to zero (what entered through
 * the seed and chain sources equals what sits in every other account), and every balance equals the sum of the
 * transfers into it less the transfers out of it.
 */
export async function expectConserved(deps: { store: Db }, accountId: string): Promise<void> {
  const db = deps.store;
  const accounts = await db.all<{ id: string; balance: number }>(
    'SELECT id, balance_micros AS balance FROM ledger_accounts WHERE account_id = ?',
    [accountId],
  );
  const moved = new Map<string, number>();
  const transfers = (
    await db.all<{ debit_id: string; credit_id: string; amount_micros: number }>(
      'SELECT debit_id, credit_id, amount_micros FROM transfers WHERE account_id = ?',
      [accountId],
    )
  ).map((t) => [t.debit_id, t.credit_id, t.amount_micros] as const);
  for (const [debit, credit, amount] of transfers) {
    moved.set(debit, (moved.get(debit) ?? 0) - amount);
    moved.set(credit, (moved.get(credit) ?? 0) + amount);
  }
  expect(accounts.reduce((sum, a) => sum + a.balance, 0)).toBe(0);
  expect(Object.fromEntries(accounts.map((a) => [a.id, a.balance]))).toEqual(
    Object.fromEntries(accounts.map((a) => [a.id, moved.get(a.id) ?? 0])),
  );
}

/** Seeds a card transaction row directly (the simulation API that creates them lives in another module). */
export async function seedTransaction(
  sb: TestSandbox,
  accountId: string,
  cardId: string,
  opts: {
    id: string;
    atMs: number;
    amountMicros?: number;
    status?: TxnStatus;
    kind?: 'SPEND' | 'REFUND';
    merchant?: string;
  },
): Promise<void> {
  const binId = (await sb.deps.store.value<string>('SELECT bin_id FROM cards WHERE id = ?', [cardId]))!;
  await sb.deps.transactions.run((deps) =>
    insertTransaction(deps.db, {
      id: opts.id,
      account_id: accountId,
      card_id: cardId,
      bin_id: binId,
      kind: opts.kind ?? 'SPEND',
      status: opts.status ?? 'CLEARED',
      bill_amount_micros: opts.amountMicros ?? 12_500_000,
      transaction_amount_micros: opts.amountMicros ?? 12_500_000,
      transaction_currency: 'USD',
      merchant_name: opts.merchant ?? 'ACME STORE',
      merchant_country: 'US',
      mcc_category: 'Retail',
      decline_reason: null,
      parent_id: null,
      created_at_ms: opts.atMs,
    }),
  );
}

/** A logger that keeps every line as JSON text. */
export function captureLogger(lines: string[]): Logger {
  const write = (level: string) => (obj: object, msg?: string) => {
    const o = obj as Record<string, unknown>;
    const err = o.err instanceof Error ? { message: o.err.message, stack: o.err.stack } : undefined;
    lines.push(JSON.stringify({ level, ...o, err, msg }));
  };
  const logger: Logger = {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: () => logger,
  };
  return logger;
}

/** PUT /v1/webhook (the webhook configuration) with the account's key. */
export function putWebhookConfig(sb: TestSandbox, key: string, body: Record<string, unknown>): TestRequest {
  return sb.request
    .put('/v1/webhook')
    .set('X-API-KEY', key)
    .set('Content-Type', 'application/json')
    .send(JSON.stringify(body));
}
