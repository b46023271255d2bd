import { expect } from 'vitest';
import { newCard, putWebhookConfig, sim } from './core.js';
import type { AccountHandle, TestSandbox } from './sandbox.js';

// An account with every kind of state a snapshot holds: cards in every status, deposits settled and settling, card
// transactions of every kind the network sends (partial clearing, increment, force post, a refund with no
// purchase), a 3DS challenge, chain deposits credited and confirming, a fault, an inventory override, a webhook with
// failed attempts and pending retries, a traffic run, and its clock frozen.

/** A webhook receiver nobody listens on: every attempt fails, so deliveries stay pending with their retries. */
export const DEAD_RECEIVER = 'http://127.0.0.1:9/hooks';

async function ok(res: PromiseLike<{ status: number; body: Record<string, unknown> }>) {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
}

export async function richAccount(sb: TestSandbox): Promise<{ acct: AccountHandle; cards: string[] }> {
  const acct = await sb.account({ balance: 5000, depositFeeRate: '0.01', depositAddress: 'auto' });
  const key = acct.apiKey;
  const step = (path: string, body: Record<string, unknown> = {}) => ok(sim(sb, key, path, body));
  await ok(putWebhookConfig(sb, key, { url: DEAD_RECEIVER }));
  await step('inventory', { binId: 'VISA-EFI-454924', available: 40 });
  const c1 = await newCard(sb, key, 500, { alias: 'travel' });
  const c2 = await newCard(sb, key, 80);
  const c3 = await newCard(sb, key, 60);
  const c4 = await newCard(sb, key, 30);
  await ok(sb.post(key, '/v1/card/deposit', { cardId: c1, amount: 100 }));
  await sb.advance(key, 5);
  await ok(sb.post(key, '/v1/card/freeze', { cardId: c3 }));
  await ok(sb.post(key, '/v1/card/cancel', { cardId: c4 }));
  await sb.advance(key, 10);

  const auth = async (body: Record<string, unknown>) =>
    (await step('card/authorize', { cardId: c1, merchantName: 'Snapshot Cafe', ...body })).transactionId as string;
  const t1 = await auth({ amount: 40 });
  await step('transaction/increment', { transactionId: t1, amount: 5 });
  await step('transaction/clear', { transactionId: t1, amount: 20, final: false });
  await step('transaction/clear', { transactionId: t1, amount: 25 });
  const t2 = await auth({ amount: 12 });
  await step('transaction/reverse', { transactionId: t2 });
  const t3 = await auth({ amount: 25, currency: 'EUR', merchantCountry: 'FR' });
  await step('transaction/clear', { transactionId: t3 });
  await step('transaction/refund', { transactionId: t3, amount: 5 });
  await auth({ amount: 9, declineReason: 'DO_NOT_HONOR' });
  await auth({ amount: 3 });
  await step('transaction/force-post', { cardId: c2, amount: 7, merchantName: 'Snapshot Air' });
  await step('transaction/refund', { cardId: c2, amount: 2 });
  await step('card/3ds', { cardId: c1, type: 'payment', merchant: 'Snapshot Shop', amount: 30 });
  await step('chain/transfer', { amount: 70, confirmations: 19 });
  await sb.advance(key, 1);
  await step('chain/transfer', { amount: 20 });
  await ok(sb.post(key, '/v1/card/deposit', { cardId: c2, amount: 10 }));
  await step('traffic/start', { cardIds: [c2], days: 2, perCardPerDay: 2, seed: 7 });
  await step('faults', { rules: [{ path: '/v1/card/cancel', count: 2, respond: { httpStatus: 503, code: 9999 } }] });
  await step('clock', { mode: 'frozen' });
  return { acct, cards: [c1, c2, c3, c4] };
}

/** Every page of bill/list, each page's rows as answered. */
async function allBills(post: (path: string, body: object) => Promise<Record<string, unknown>>) {
  const rows: unknown[] = [];
  for (let page = 1; ; page++) {
    const body = await post('/v1/bill/list', { pageNumber: page, pageSize: 10 });
    const transactions = body.transactions as unknown[];
    rows.push(...transactions);
    if (body.last === true || page >= (body.totalPages as number)) return rows;
  }
}

/** What a partner reads of an account: every answer a snapshot must reproduce exactly. */
export async function reads(post: (path: string, body?: object) => Promise<Record<string, unknown>>, cards: string[]) {
  const out: Record<string, unknown> = {
    assetList: await post('/v1/wallet/assetList'),
    cardList: await post('/v1/card/list'),
    bills: await allBills(post),
    clock: await post('/sandbox/v1/clock'),
    binList: await post('/v1/card/binList'),
    deposits: await post('/sandbox/v1/chain/deposits'),
    events: await post('/sandbox/v1/events', { limit: 100 }),
    deliveries: await post('/sandbox/v1/webhook/deliveries', { limit: 100 }),
  };
  for (const cardId of cards) {
    out[`detail ${cardId}`] = await post('/v1/card/detail', { cardId });
    out[`asset ${cardId}`] = await post('/v1/card/asset', { cardId });
    out[`bills ${cardId}`] = await post('/v1/bill/list', { cardId, pageSize: 100 });
  }
  return out;
}
