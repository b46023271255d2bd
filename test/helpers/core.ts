import { expect } from 'vitest';
import { listEvents, type StoredEvent } from '../../src/domain/events.js';
import { balancesByKind, ledgerIsBalanced } from '../../src/domain/ledger.js';
import type { Logger } from '../../src/domain/logger.js';
import { insertTransaction, type TxnStatus } from '../../src/domain/transactions.js';
import type { TestRequest } from './client.js';
import { FUNDED_ACCOUNT, type AccountHandle, type TestSandbox } from './sandbox.js';

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

/** Events of the account, oldest first (what a webhook receiver would have seen, in order). */
export function eventsOf(sb: TestSandbox, accountId: string, type?: string): StoredEvent[] {
  return listEvents(sb.deps.db, accountId, { type, limit: 1000 }).reverse();
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
export function outbox(sb: TestSandbox, accountId: string): OutboxEvent[] {
  const rows = sb.deps.db
    .prepare('SELECT id, type, created_s, data FROM events WHERE account_id = ? ORDER BY seq')
    .all(accountId) as { id: string; type: string; created_s: number; data: string }[];
  return rows.map((r) => ({ id: r.id, type: r.type, created: r.created_s, data: JSON.parse(r.data) }));
}

/** Row counts that a failed request must leave untouched. */
export function worldSnapshot(sb: TestSandbox, accountId: string) {
  const count = (table: string) =>
    sb.deps.db.prepare(`SELECT COUNT(*) FROM ${table} WHERE account_id = ?`).pluck().get(accountId) as number;
  return {
    balances: balancesByKind(sb.deps.db, accountId),
    cards: count('cards'),
    transfers: count('transfers'),
    events: count('events'),
    topups: count('topups'),
    jobs: count('jobs'),
    keys: count('idempotency_keys'),
  };
}

/**
 * Sends a request that must be refused with `status` and leave the account's rows as they were (a failed request
 * changes nothing); returns the answer for the caller's checks of its body.
 */
export async function expectRefusedUnchanged<R extends { status: number; body: unknown }>(
  sb: TestSandbox,
  accountId: string,
  status: number,
  send: () => PromiseLike<R>,
): Promise<R> {
  const before = worldSnapshot(sb, accountId);
  const res = await send();
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(worldSnapshot(sb, accountId)).toEqual(before);
  return res;
}

/**
 * behaviour.md section 1: seeded + confirmed deposits == wallet + settling + cards (available + held) + fees
 * + cleared spend - refunds; and the double-entry ledger balances.
 */
export function expectConserved(sb: TestSandbox, accountId: string): void {
  const b = balancesByKind(sb.deps.db, accountId);
  expect(ledgerIsBalanced(sb.deps.db, accountId)).toBe(true);
  expect(0 - (b.seed + b.chain) + 0).toBe(b.wallet + b.settling + b.card + b.held + b.fee + b.merchant + 0);
}

/** Seeds a card transaction row directly (the simulation API that creates them lives in another module). */
export function seedTransaction(
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
): void {
  const binId = sb.deps.db.prepare('SELECT bin_id FROM cards WHERE id = ?').pluck().get(cardId) as string;
  sb.deps.db.transaction(() =>
    insertTransaction(sb.deps.db, {
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
  )();
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
