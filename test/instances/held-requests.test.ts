import { afterEach, describe, expect, it } from 'vitest';
import { startInstances, type Instances } from '../helpers/instances.js';
import { waitFor } from '../helpers/wait.js';

// Seen from anywhere: a request a fault holds on one instance is counted by faults/held on every instance, and
// faults/release through any instance lets it go on (domain/faults/shared-holds.ts). Each wait is on state.

let deployment: Instances | undefined;
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
});

const post = async (url: string, path: string, apiKey: string, body: unknown = {}, headers = {}) => {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

describe('Many instances: requests held by a fault', () => {
  it('faults/release through one instance lets go of the requests held on the others, and counts them', async (ctx) => {
    deployment = await startInstances(ctx, 3);
    const [a, b, c] = deployment.urls as [string, string, string];
    const partner = await deployment.newAccount(100);
    const rules = { rules: [{ path: '/v1/card/create', hold: true, count: 2 }] };
    expect((await post(c, '/sandbox/v1/faults', partner.apiKey, rules)).status).toBe(200);
    const create = { amount: 10, currency: 'USDT' };
    const onA = post(a, '/v1/card/create', partner.apiKey, create, { 'Idempotency-Key': 'held-on-a' });
    const onB = post(b, '/v1/card/create', partner.apiKey, create, { 'Idempotency-Key': 'held-on-b' });
    // Every instance counts both, wherever it is asked.
    await waitFor(
      'both requests held',
      async () => (await post(c, '/sandbox/v1/faults/held', partner.apiKey)).body.held === 2,
    );
    for (const url of [a, b, c]) expect((await post(url, '/sandbox/v1/faults/held', partner.apiKey)).body.held).toBe(2);
    // Nothing ran while they were held.
    expect((await post(c, '/v1/card/list', partner.apiKey)).body.cardList).toEqual([]);
    const release = await post(c, '/sandbox/v1/faults/release', partner.apiKey);
    expect(release).toMatchObject({ status: 200, body: { code: 0, released: 2 } });
    const [answerA, answerB] = await Promise.all([onA, onB]);
    expect(answerA.status).toBe(200);
    expect(answerB.status).toBe(200);
    expect((await post(a, '/v1/card/list', partner.apiKey)).body.cardList).toHaveLength(2);
    expect((await post(b, '/sandbox/v1/faults/held', partner.apiKey)).body.held).toBe(0);
    // Three processes, one sandbox: each names itself, and the ready account's key works on any of them.
    const health = await Promise.all([a, b, c].map(async (u) => (await (await fetch(`${u}/healthz`)).json()) as any));
    expect(new Set(health.map((h) => h.instance)).size).toBe(3);
    expect(health.every((h) => h.store === 'postgres')).toBe(true);
    expect((await post(c, '/v1/wallet/assetList', deployment.apiKey!)).status).toBe(200);
  });
});
