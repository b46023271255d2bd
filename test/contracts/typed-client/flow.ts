import createClient from 'openapi-fetch';
import type { components, paths } from '../../../src/contracts/api-types.js';

// A partner's client, generated from the served /openapi.json by openapi-typescript and used with openapi-fetch.
// test/contracts/typed-client.test.ts type-checks this file with --strict --exactOptionalPropertyTypes
// --noUncheckedIndexedAccess (no cast anywhere: the generated types must be usable as they are), then runs it.

type Schemas = components['schemas'];
export type WebhookEvent = Schemas['events.envelope'];

/** One typed event of each type, built as a receiver's tests would build them. */
export function sampleEvents(cardId: string): WebhookEvent[] {
  const spend: Schemas['events.transaction.created.data'] = {
    transactionId: 'txn_1',
    cardId,
    status: 'PENDING',
    billAmount: 12.5,
    billCurrency: 'USD',
    transactionAmount: 12.5,
    transactionCurrency: 'USD',
    merchantName: 'COFFEE HOUSE',
    merchantCountry: 'US',
    mccCategory: 'Restaurants',
    eventType: 'SPEND',
    settledAt: '2026-06-01T12:00:00',
  };
  const created: Schemas['events.card.created'] = {
    id: 'evt_1',
    type: 'card.created',
    created: 1780272000,
    data: { cardId, binId: 'VISA-EFI-454924', status: 'ACTIVE' },
  };
  const frozen: Schemas['events.card.frozen'] = { id: 'evt_2', type: 'card.frozen', created: 1, data: { cardId } };
  const unfrozen: Schemas['events.card.unfrozen'] = {
    id: 'evt_3',
    type: 'card.unfrozen',
    created: 2,
    data: { cardId },
  };
  const cancelled: Schemas['events.card.cancelled'] = {
    id: 'evt_4',
    type: 'card.cancelled',
    created: 3,
    data: { cardId },
  };
  const threeDs: Schemas['events.card.3ds.requested'] = {
    id: 'evt_5',
    type: 'card.3ds.requested',
    created: 4,
    data: { type: 'payment', merchant: 'SHOP', amount: '12.5', currency: 'USD', cardId, last4: '1234' },
  };
  const txnCreated: Schemas['events.transaction.created'] = {
    id: 'evt_6',
    type: 'transaction.created',
    created: 5,
    data: spend,
  };
  const txnUpdated: Schemas['events.transaction.updated'] = {
    id: 'evt_7',
    type: 'transaction.updated',
    created: 6,
    data: { ...spend, status: 'CLEARED', previousStatus: 'PENDING' },
  };
  return [created, frozen, unfrozen, cancelled, threeDs, txnCreated, txnUpdated];
}

/** What a receiver does with an event: the union narrows on `type`, and `data` is typed by it. */
export function describeEvent(event: WebhookEvent): string {
  switch (event.type) {
    case 'card.created':
      return `card ${event.data.cardId} created ${event.data.status}`;
    case 'card.frozen':
    case 'card.unfrozen':
    case 'card.cancelled':
      return `${event.type} ${event.data.cardId}`;
    case 'card.3ds.requested':
      return `3DS ${event.data.type} at ${event.data.merchant} on ${event.data.last4}`;
    case 'transaction.created':
      return `transaction ${event.data.transactionId} ${event.data.status}`;
    case 'transaction.updated':
      return `transaction ${event.data.transactionId} ${event.data.previousStatus} -> ${event.data.status}`;
  }
}

function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what}: no data in the answer`);
  return value;
}

/** Calls every /v1 and /sandbox/v1 operation once (in an order that gives each what it needs); returns the calls made. */
export async function runFlow(opts: {
  baseUrl: string;
  apiKey: string;
  fetch: (request: Request) => Promise<Response>;
}): Promise<string[]> {
  const called: string[] = [];
  const client = createClient<paths>({
    baseUrl: opts.baseUrl,
    fetch: opts.fetch,
    headers: { 'X-API-KEY': opts.apiKey },
  });
  client.use({
    onResponse({ request, response }) {
      called.push(`${request.method} ${new URL(request.url).pathname} ${response.status}`);
      return undefined;
    },
  });

  // Money in.
  must((await client.POST('/sandbox/v1/wallet/seed', { body: { amount: 1000 } })).data, 'seed');
  const transfer = must(
    (await client.POST('/sandbox/v1/chain/transfer', { body: { amount: 10.5, confirmations: 19 } })).data,
    'transfer',
  );
  const deposits = must((await client.POST('/sandbox/v1/chain/deposits', { body: {} })).data, 'deposits');
  if (!deposits.deposits.some((d) => d.txId === transfer.txId)) throw new Error('transfer not among deposits');
  const assets = must((await client.POST('/v1/wallet/assetList', { body: {} })).data, 'assetList');
  const usdt = assets.assetList.find((a) => a.currency === 'USDT');
  if (usdt === undefined) throw new Error('no USDT balance');
  must((await client.POST('/v1/wallet/getAddress', { body: { currency: 'USDT', network: 'TRX' } })).data, 'address');

  // Cards.
  const bins = must((await client.POST('/v1/card/binList', { body: {} })).data, 'binList');
  const bin = bins.availableCardBinList[0];
  if (bin === undefined) throw new Error('no BIN');
  must((await client.POST('/sandbox/v1/inventory', { body: { binId: bin.id, available: 100 } })).data, 'inventory');
  const card = must(
    (
      await client.POST('/v1/card/create', {
        body: { amount: 50, currency: 'USDT', binId: bin.id, alias: 'typed' },
        params: { header: { 'Idempotency-Key': 'typed-client-create-1' } },
      })
    ).data,
    'create',
  );
  const cardId = card.cardId;
  const list = must((await client.POST('/v1/card/list', { body: { status: 'ACTIVE' } })).data, 'list');
  const listed = list.cardList.find((c) => c.cardId === cardId);
  if (listed === undefined || listed.cardStatus !== 'ACTIVE') throw new Error('card not listed ACTIVE');
  const detail = must((await client.POST('/v1/card/detail', { body: { cardId } })).data, 'detail');
  if (detail.bin.id !== bin.id) throw new Error('detail shows another BIN');
  must((await client.POST('/v1/card/asset', { body: { cardId } })).data, 'asset');
  const secret = must((await client.POST('/v1/card/sensitiveInfo', { body: { cardId } })).data, 'sensitiveInfo');
  if (!secret.cardNo.endsWith(detail.maskedCardNo.slice(-4))) throw new Error('card number and mask disagree');
  must((await client.POST('/v1/card/deposit', { body: { cardId, amount: 20, currency: 'USDT' } })).data, 'deposit');

  // Webhook endpoint (nothing listens on the discard port: deliveries fail, which is fine here).
  must((await client.PUT('/v1/webhook', { body: { url: 'http://127.0.0.1:9/hooks', enabled: true } })).data, 'put');
  must((await client.GET('/v1/webhook')).data, 'get webhook');
  const rotated = must((await client.POST('/v1/webhook/rotate-secret', { body: {} })).data, 'rotate');
  if (!rotated.secret.startsWith('whsec_')) throw new Error('no secret');

  // Merchant side.
  const auth = must(
    (await client.POST('/sandbox/v1/card/authorize', { body: { cardId, amount: 12.5, merchantName: 'COFFEE' } })).data,
    'authorize',
  );
  must(
    (await client.POST('/sandbox/v1/transaction/clear', { body: { transactionId: auth.transactionId } })).data,
    'clear',
  );
  must(
    (await client.POST('/sandbox/v1/transaction/refund', { body: { transactionId: auth.transactionId, amount: 2.5 } }))
      .data,
    'refund',
  );
  const auth2 = must((await client.POST('/sandbox/v1/card/authorize', { body: { cardId, amount: 3 } })).data, 'auth2');
  must(
    (await client.POST('/sandbox/v1/transaction/reverse', { body: { transactionId: auth2.transactionId } })).data,
    'reverse',
  );
  // The network's hard cases: an increment, a part cleared on its own, a force post, a refund with no purchase.
  const auth3 = must((await client.POST('/sandbox/v1/card/authorize', { body: { cardId, amount: 4 } })).data, 'auth3');
  const raised = must(
    (
      await client.POST('/sandbox/v1/transaction/increment', {
        body: { transactionId: auth3.transactionId, amount: 1 },
      })
    ).data,
    'increment',
  );
  if (raised.status !== 'PENDING' || raised.billAmount !== 5) throw new Error('increment not approved');
  const part = must(
    (
      await client.POST('/sandbox/v1/transaction/clear', {
        body: { transactionId: auth3.transactionId, amount: 2, final: false },
      })
    ).data,
    'clear part',
  );
  if (part.authorization === undefined || part.authorization.billAmount !== 3) throw new Error('no rest pending');
  must(
    (await client.POST('/sandbox/v1/transaction/reverse', { body: { transactionId: auth3.transactionId, amount: 1 } }))
      .data,
    'reverse part',
  );
  must(
    (await client.POST('/sandbox/v1/transaction/clear', { body: { transactionId: auth3.transactionId, final: true } }))
      .data,
    'clear rest',
  );
  must(
    (await client.POST('/sandbox/v1/transaction/force-post', { body: { cardId, amount: 1.5, currency: 'EUR' } })).data,
    'force-post',
  );
  const goodwill = must(
    (await client.POST('/sandbox/v1/transaction/refund', { body: { cardId, amount: 0.5 } })).data,
    'goodwill',
  );
  if (goodwill.refundOf !== undefined) throw new Error('a refund with no purchase names one');
  const traffic = must(
    (
      await client.POST('/sandbox/v1/traffic/start', {
        body: { cardIds: [cardId], days: 1, perCardPerDay: 2, seed: 1 },
      })
    ).data,
    'traffic/start',
  );
  must((await client.POST('/sandbox/v1/traffic/list', { body: {} })).data, 'traffic/list');
  const stopped = must(
    (await client.POST('/sandbox/v1/traffic/stop', { body: { trafficId: traffic.trafficId } })).data,
    'traffic/stop',
  );
  if (stopped.status !== 'stopped') throw new Error('traffic not stopped');
  const challenge = must(
    (await client.POST('/sandbox/v1/card/3ds', { body: { cardId, type: 'payment' } })).data,
    '3ds',
  );
  const verified = must(
    (await client.POST('/sandbox/v1/3ds/verify', { body: { challengeId: challenge.challengeId, otp: challenge.otp } }))
      .data,
    'verify',
  );
  if (verified.result !== 'APPROVED') throw new Error(`3DS ${verified.result}`);

  // Faults, clock, events and deliveries.
  const armed = must(
    (
      await client.POST('/sandbox/v1/faults', {
        body: { rules: [{ path: '/v1/card/asset', respond: { httpStatus: 503, code: 9999 } }] },
      })
    ).data,
    'faults',
  );
  const faulted = await client.POST('/v1/card/asset', { body: { cardId } });
  if (faulted.response.status !== 503 || faulted.error === undefined || faulted.error.code !== 9999)
    throw new Error('fault rule did not answer');
  if (armed.rules.length !== 1) throw new Error('rule not armed');
  const held = must((await client.POST('/sandbox/v1/faults/held', { body: {} })).data, 'faults/held');
  if (held.held !== 0) throw new Error('nothing was held, yet faults/held counts some');
  const released = must((await client.POST('/sandbox/v1/faults/release', { body: {} })).data, 'faults/release');
  if (released.released !== 0) throw new Error('nothing was held, yet a release let requests go');
  must((await client.POST('/sandbox/v1/faults/clear', { body: {} })).data, 'faults/clear');
  must((await client.POST('/sandbox/v1/clock', { body: { advanceSeconds: 60 } })).data, 'clock');
  const events = must((await client.POST('/sandbox/v1/events', { body: { limit: 100 } })).data, 'events');
  const lines = events.events.map(describeEvent);
  const first = events.events[0];
  if (first === undefined || lines.length === 0) throw new Error('no events');
  must((await client.POST('/sandbox/v1/webhook/deliveries', { body: { eventId: first.id } })).data, 'deliveries');
  must((await client.POST('/sandbox/v1/webhook/redeliver', { body: { eventId: first.id } })).data, 'redeliver');

  // Card lifecycle and transactions.
  must((await client.POST('/v1/card/freeze', { body: { cardId } })).data, 'freeze');
  must((await client.POST('/v1/card/unfreeze', { body: { cardId } })).data, 'unfreeze');
  const bills = must(
    (await client.POST('/v1/bill/list', { body: { cardId, pageNumber: 1, pageSize: 10 } })).data,
    'bill/list',
  );
  if (bills.transactions.length === 0) throw new Error('no transactions listed');
  must((await client.POST('/v1/card/cancel', { body: { cardId } })).data, 'cancel');

  // Child sandboxes and the request log.
  const child = must(
    (await client.POST('/sandbox/v1/sandboxes/create', { body: { name: 'typed', ttlSeconds: 3600 } })).data,
    'sandboxes/create',
  );
  must((await client.POST('/sandbox/v1/sandboxes/list', { body: {} })).data, 'sandboxes/list');
  must(
    (await client.POST('/sandbox/v1/sandboxes/delete', { body: { accountId: child.accountId } })).data,
    'sandboxes/delete',
  );
  // Snapshots: the account as one document, loaded as it came into a child of its own.
  const snapshot = must((await client.POST('/sandbox/v1/snapshot/export', { body: {} })).data, 'snapshot/export');
  const copy = must((await client.POST('/sandbox/v1/snapshot/import', { body: snapshot })).data, 'snapshot/import');
  if (copy.changedIds[cardId] === undefined) throw new Error('the copy kept an id its parent holds');
  must(
    (await client.POST('/sandbox/v1/sandboxes/delete', { body: { accountId: copy.accountId } })).data,
    'delete the copy',
  );
  const log = must((await client.POST('/sandbox/v1/requests', { body: { limit: 10 } })).data, 'requests');
  const logged = log.requests[0];
  if (logged === undefined) throw new Error('no request logged');
  must((await client.POST('/sandbox/v1/requests/get', { body: { requestId: logged.requestId } })).data, 'requests/get');

  // A readiness run: its test deliveries go to the webhook above (nothing listens: each one fails at once). The
  // ledger posted is card/asset's own, read before the run (the run answers its first read with a 429).
  const asset = must((await client.POST('/v1/card/asset', { body: { cardId } })).data, 'asset again');
  const run = must((await client.POST('/sandbox/v1/readiness/run', { body: { windowSeconds: 60 } })).data, 'run');
  must((await client.POST('/sandbox/v1/readiness/get', { body: { runId: run.runId } })).data, 'readiness/get');
  const posted = must(
    (
      await client.POST('/sandbox/v1/readiness/ledger', {
        body: { cards: [{ cardId, availableAmount: asset.availableAmount, frozenAmount: asset.frozenAmount }] },
      })
    ).data,
    'readiness/ledger',
  );
  if (posted.result !== 'pass') throw new Error('the ledger posted from card/asset does not agree with it');
  const report = must((await client.POST('/sandbox/v1/readiness/stop', { body: { runId: run.runId } })).data, 'stop');
  if (report.status !== 'done' || report.checks.length !== 11) throw new Error('readiness run not done');
  must((await client.POST('/sandbox/v1/readiness/list', { body: {} })).data, 'readiness/list');

  // Clean up.
  must((await client.DELETE('/v1/webhook')).data, 'delete webhook');
  must((await client.POST('/sandbox/v1/reset', { body: { balance: 100 } })).data, 'reset');
  return called;
}
