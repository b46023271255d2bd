import { afterEach, describe, expect, it } from 'vitest';
import { spawnCli, stop } from '../helpers/cli-process.js';
import { post } from '../helpers/http-call.js';
import { startInstances, type Instances } from '../helpers/instances.js';
import { waitFor } from '../helpers/wait.js';

// Issue 44, "Seen from anywhere": what a partner does through one instance is seen through every other. Events are
// rows written with the request that made them, so another instance reads them as soon as the answer is sent; a
// request's record waits in its instance's buffer until the next batch (at most a second later, request-log/log.ts),
// then any instance reads it. Each wait is on state: a read repeated until it shows the record.

let deployment: Instances | undefined;
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
});

type Body = Record<string, any>;

/** A call on `url` that must succeed; its body and the request id the instance gave it. */
async function ok(url: string, apiKey: string, path: string, body: unknown = {}, headers = {}) {
  const answer = await post(url, apiKey, path, body, headers);
  expect(answer.status, `${path}: ${answer.text}`).toBe(200);
  return { body: answer.body as Body, requestId: answer.headers.get('x-request-id')! };
}

describe('Many instances: seen from anywhere', () => {
  it("a request made on one instance is listed and read whole through another's request log", async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const [a, b] = deployment.urls as [string, string];
    const { apiKey } = await deployment.newAccount(100);
    const made = await ok(a, apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' }, { 'Idempotency-Key': 'k1' });
    const listed = await waitFor('the record listed by the other instance', async () => {
      const page = (await ok(b, apiKey, '/sandbox/v1/requests', { path: '/v1/card/create' })).body;
      return (page.requests as Body[]).find((r) => r.requestId === made.requestId);
    });
    expect(listed).toMatchObject({ method: 'POST', path: '/v1/card/create', status: 200, idempotencyKey: 'k1' });
    // The whole record, as the instance that served the request reads it.
    const onB = (await ok(b, apiKey, '/sandbox/v1/requests/get', { requestId: made.requestId })).body;
    const onA = (await ok(a, apiKey, '/sandbox/v1/requests/get', { requestId: made.requestId })).body;
    expect(onB).toEqual(onA);
    expect(onB.response.body).toMatchObject({ cardId: made.body.cardId });
  });

  it("events made on either instance are listed through the other's events API as soon as their request is answered", async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const [a, b] = deployment.urls as [string, string];
    const { apiKey } = await deployment.newAccount(100);
    const { cardId } = (await ok(a, apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' })).body;
    await ok(b, apiKey, '/v1/card/freeze', { cardId });
    // No wait: an event commits with the request that wrote it, before its answer.
    const typesOn = async (url: string) =>
      ((await ok(url, apiKey, '/sandbox/v1/events', { limit: 100 })).body.events as Body[])
        .filter((e) => e.data.cardId === cardId)
        .map((e) => e.type as string);
    const onB = await typesOn(b);
    expect(onB).toEqual(expect.arrayContaining(['card.created', 'card.frozen']));
    expect(await typesOn(a)).toEqual(onB);
  });

  it('`logs tail` following one instance prints the requests made on another', async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const [a, b] = deployment.urls as [string, string];
    const { apiKey } = await deployment.newAccount(100);
    const tail = spawnCli(['logs', 'tail', '--base-url', b, '--api-key', apiKey, '--interval', '100', '--json']);
    try {
      await waitFor('the banner on stderr', () => /^Tailing the request log/m.test(tail.stderr()));
      const made = await ok(a, apiKey, '/v1/wallet/assetList');
      const [json] = await tail.waitForOutput(new RegExp(`^\\{.*"requestId":"${made.requestId}".*\\}$`, 'm'));
      expect(JSON.parse(json)).toMatchObject({ method: 'POST', path: '/v1/wallet/assetList', status: 200 });
    } finally {
      await stop(tail);
    }
  });
});
