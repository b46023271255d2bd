import { stop } from '../helpers/cli-process.js';
import { startProxyCli } from '../helpers/proxy-process.js';
import { call } from '../helpers/http-call.js';

// Recordings for the replay tests, made as a partner makes them: the compiled proxy with --record in front of a
// target, a client calling through it.

export type Call = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; body: Record<string, any> }>;

/** A client of `baseUrl` with `apiKey`: JSON in, JSON out. */
export function client(baseUrl: string, apiKey: string): Call {
  return (method, path, body, headers = {}) => call(baseUrl, apiKey, method, path, body, headers);
}

/** Runs `flow` through a recording proxy in front of `target`; answers the recording's path. */
export async function record(target: string, apiKey: string, flow: (call: Call) => Promise<void>): Promise<string> {
  const proxy = await startProxyCli(target);
  try {
    await flow(client(proxy.url, apiKey));
  } finally {
    await stop(proxy);
  }
  return proxy.files.record;
}

/**
 * A day of a partner's traffic in miniature: reads, a card issued with a key, its secrets read, a top-up that
 * settles on the clock, a purchase cleared, a freeze, a listing, the events, a webhook endpoint, and a deliberate
 * unknown card.
 */
export async function cardFlow(call: Call): Promise<void> {
  const ok = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const r = await call(method, path, body, headers);
    if (r.status !== 200) throw new Error(`${method} ${path}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await ok('POST', '/v1/wallet/assetList', {});
  await ok('POST', '/v1/card/binList', {});
  const { cardId } = await ok(
    'POST',
    '/v1/card/create',
    { amount: 50, currency: 'USDT', alias: 'travel' },
    { 'Idempotency-Key': `flow-create-${crypto.randomUUID()}` },
  );
  await ok('POST', '/v1/card/detail', { cardId });
  await ok('POST', '/v1/card/sensitiveInfo', { cardId });
  await ok('POST', '/v1/card/deposit', { cardId, amount: 10, currency: 'USDT' });
  await ok('POST', '/v1/card/asset', { cardId });
  await ok('POST', '/sandbox/v1/clock', { advanceSeconds: 5 });
  await ok('POST', '/v1/card/asset', { cardId });
  const { transactionId } = await ok('POST', '/sandbox/v1/card/authorize', {
    cardId,
    amount: 5,
    merchantName: 'Corner Books',
    merchantCountry: 'GB',
    mccCategory: 'Books',
  });
  await ok('POST', '/sandbox/v1/transaction/clear', { transactionId });
  await ok('POST', '/v1/bill/list', { cardId });
  await call('POST', '/v1/card/freeze', { cardId });
  await ok('POST', '/v1/card/list', {});
  await ok('POST', '/sandbox/v1/events', { limit: 20 });
  await ok('PUT', '/v1/webhook', { url: 'http://127.0.0.1:9/hooks', enabled: true });
  await ok('GET', '/v1/webhook');
  await call('POST', '/v1/card/detail', { cardId: '2026010100000000000000' });
}
