import { afterEach, describe, expect, it } from 'vitest';
import { startInstances, type Instances } from '../helpers/instances.js';

// The harness of the many-instance tests (test/helpers/instances.ts) on its own: real `serve` processes on one
// PostgreSQL database answer as one sandbox.

let deployment: Instances | undefined;
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
});

const post = async (url: string, path: string, apiKey: string, body: unknown = {}) => {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('Many instances on one PostgreSQL database', () => {
  it('a card made through one instance is read through every other; the ready account key works on any', async (ctx) => {
    deployment = await startInstances(ctx, 3);
    const { urls, apiKey } = deployment;
    expect(apiKey).toMatch(/^sk_sandbox_/);
    const partner = await deployment.newAccount(100);
    const card = await post(urls[1]!, '/v1/card/create', partner.apiKey, { amount: 10, currency: 'USDT' });
    expect(card.status).toBe(200);
    for (const url of urls) {
      const list = await post(url, '/v1/card/list', partner.apiKey);
      expect(list.body.cardList.map((c: { cardId: string }) => c.cardId)).toEqual([card.body.cardId]);
    }
    expect((await post(urls[2]!, '/v1/wallet/assetList', apiKey!)).status).toBe(200);
    const health = await Promise.all(urls.map(async (u) => (await (await fetch(`${u}/healthz`)).json()) as any));
    expect(new Set(health.map((h) => h.instance)).size).toBe(3);
    expect(health.every((h) => h.store === 'postgres')).toBe(true);
  });
});
