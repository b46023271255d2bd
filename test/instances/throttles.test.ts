import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FAILURES } from '../../src/http/failure-throttle.js';
import { liveInstances, startInstances, type Instances } from '../helpers/instances.js';
import { waitFor } from '../helpers/wait.js';

// Failed credentials across instances (http/failure-throttle.ts): each live instance grants its share of the bound on
// wrong credentials from an address, as of every tenant budget, so a guesser spread over the deployment by a load
// balancer gets about the bound one instance grants, not that bound once per instance. Decided by state: each
// instance's count of the live instances is read from its metrics before the first guess.

let deployment: Instances | undefined;
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
});

/** Each instance's share of the bound once both count two, taken together. */
const SHARED_BOUND = 2 * Math.ceil(MAX_FAILURES / 2);

/**
 * Sends wrong credentials round the instances, each answered at once, until every instance has refused one with
 * 429; answers how many were let through to be checked (and failed) before that.
 */
async function guessUntilEachRefuses(urls: string[], guess: (url: string, i: number) => Promise<number>) {
  const refusing = new Set<string>();
  let checked = 0;
  for (let i = 0; refusing.size < urls.length && i < 4 * MAX_FAILURES * urls.length; i++) {
    const url = urls[i % urls.length]!;
    const status = await guess(url, i);
    if (status === 429) refusing.add(url);
    else checked++;
  }
  expect(refusing.size).toBe(urls.length);
  return checked;
}

async function twoCountingEachOther(ctx: Parameters<typeof startInstances>[0]): Promise<Instances> {
  deployment = await startInstances(ctx, 2);
  for (const url of deployment.urls) {
    const token = deployment.adminToken;
    await waitFor(`${url} to count two instances`, async () => (await liveInstances(url, token)) === 2);
  }
  return deployment;
}

describe('Many instances: failed credentials are throttled across the deployment', () => {
  it('wrong admin tokens spread over two instances get the bound of one, not twice it; the right token still works on each', async (ctx) => {
    const { urls, adminToken } = await twoCountingEachOther(ctx);
    const checked = await guessUntilEachRefuses(urls, async (url, i) => {
      const res = await fetch(`${url}/admin/v1/accounts/-`, { headers: { authorization: `Bearer wrong-token-${i}` } });
      await res.arrayBuffer();
      if (res.status !== 429) expect(res.status).toBe(401);
      return res.status;
    });
    expect(checked).toBe(SHARED_BOUND);
    expect(checked).toBeLessThanOrEqual(MAX_FAILURES * 1.25);
    for (const url of urls) expect(await liveInstances(url, adminToken)).toBe(2);
  });

  it("wrong API keys at the console's sign-in, spread over two instances, get the bound of one, not twice it", async (ctx) => {
    const { urls } = await twoCountingEachOther(ctx);
    const checked = await guessUntilEachRefuses(urls, async (url, i) => {
      const res = await fetch(`${url}/console/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
        body: new URLSearchParams({ apiKey: `sk_sandbox_guess${i}` }),
        redirect: 'manual',
      });
      await res.arrayBuffer();
      if (res.status !== 429) expect(res.status).toBe(400);
      return res.status;
    });
    expect(checked).toBe(SHARED_BOUND);
    // A working key still signs in on either instance: the throttle slows guesses only.
    const { apiKey } = await deployment!.newAccount(10);
    for (const url of urls) {
      const res = await fetch(`${url}/console/signin`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url },
        body: new URLSearchParams({ apiKey }),
        redirect: 'manual',
      });
      expect(res.status).toBe(303);
    }
  });
});
