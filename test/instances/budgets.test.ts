import { afterEach, describe, expect, it } from 'vitest';
import { liveInstances, startInstances, type Instances } from '../helpers/instances.js';
import { waitFor } from '../helpers/wait.js';

// Budgets across instances (domain/kernel/deployment.ts): each live instance enforces its share of a tenant's
// budget, so a tenant spreading its requests over the deployment holds at most 1.25x what one instance grants.
// Decided by state: requests held by a fault stay in flight until released, and each instance's count of the live
// instances is read from its metrics before the tenant sends anything.

let deployment: Instances | undefined;
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
});

const BUDGET = 8;
// The rate budget out of the way: only the in-flight budget is under test.
const HOSTED = ['--mode', 'hosted', '--tenant-max-in-flight', String(BUDGET), '--rate-limit', '100000'];

async function post(url: string, path: string, apiKey: string, body: unknown = {}) {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Sends held card/list requests round the instances until `refusals` of them were refused; answers those held. */
async function holdUntilRefused(urls: string[], apiKey: string, refusals: number) {
  const held: Promise<{ status: number }>[] = [];
  let refused = 0;
  for (let i = 0; refused < refusals && i < 100; i++) {
    let answer: { status: number } | undefined;
    const request = post(urls[i % urls.length]!, '/v1/card/list', apiKey).then((r) => (answer = r));
    // A refusal is answered at once; a request let in is held (counted by faults/held) until the release.
    const isHeld = await waitFor('the request held or answered', async () => {
      if (answer) return 'answered';
      const count = (await post(urls[0]!, '/sandbox/v1/faults/held', apiKey)).body.held as number;
      return count > held.length ? 'held' : false;
    });
    if (isHeld === 'held') held.push(request);
    else if (answer!.status === 429) refused++;
    else throw new Error(`a held request was answered ${answer!.status}`);
  }
  return held;
}

describe('Many instances: a tenant budget holds across the deployment', () => {
  it('requests in flight: spread over two instances a tenant holds its budget, not twice it', async (ctx) => {
    deployment = await startInstances(ctx, 2, { args: HOSTED });
    const { urls, adminToken } = deployment;
    for (const url of urls)
      await waitFor(`${url} to count two instances`, async () => (await liveInstances(url, adminToken)) === 2);
    const partner = await deployment.newAccount(100);
    const hold = { rules: [{ path: '/v1/card/list', hold: true, count: 1000 }] };
    expect((await post(urls[0]!, '/sandbox/v1/faults', partner.apiKey, hold)).status).toBe(200);
    // Two refusals: each instance has refused one, so each is at its share.
    const held = await holdUntilRefused(urls, partner.apiKey, 2);
    expect(held.length).toBeGreaterThanOrEqual(BUDGET);
    expect(held.length).toBeLessThanOrEqual(BUDGET * 1.25);
    expect((await post(urls[1]!, '/sandbox/v1/faults/release', partner.apiKey)).body.released).toBe(held.length);
    for (const answer of await Promise.all(held)) expect(answer.status).toBe(200);
  });
});
