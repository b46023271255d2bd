import { afterEach, describe, expect, it } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

// Injected faults apply after authentication and the per-key rate limit, and every faulted
// request spends the key's budget like any other. The wall clock stands still in these tests, so the budget
// never refills while they run.

let sb: TestSandbox;
afterEach(() => sb.close());

const armed = (path: string) =>
  sb.deps.store.value<number>('SELECT COALESCE(SUM(remaining), 0) FROM faults WHERE path = ?', [path]);

async function hostedAccountWithRule(limit: number, rule: Record<string, unknown>) {
  // 429s are sent at once here: what is tested is the order of the checks, not the hold (rate-limit.test.ts).
  sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: limit, rateLimitHoldMs: 0 } });
  const { apiKey } = await sb.account();
  // Arming the rule is one request of the budget; the refill below gives it back.
  expect((await sb.post(apiKey, '/sandbox/v1/faults', { rules: [rule] })).status).toBe(200);
  sb.wall.ms += 1000;
  return apiKey;
}

describe('faults after the rate limit (hosted mode)', () => {
  it('a respond rule answers only within the key budget: the burst beyond it is 429 and spends no use of the rule', async () => {
    const path = '/v1/card/list';
    const apiKey = await hostedAccountWithRule(5, { path, count: 300, respond: { httpStatus: 503, code: 9999 } });
    const answers = await Promise.all(Array.from({ length: 30 }, () => sb.post(apiKey, path, {})));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 503)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(25);
    expect(await armed(path)).toBe(295);
  });

  it('a latencyMs rule holds open only the requests within the key budget: the rest are refused with 429 at once', async () => {
    const path = '/v1/wallet/assetList';
    const apiKey = await hostedAccountWithRule(3, { path, count: 100, latencyMs: 200 });
    const accountId = (await sb.deps.store.value<string>('SELECT id FROM accounts'))!;
    const statuses: number[] = [];
    const answers = Array.from({ length: 12 }, () => sb.post(apiKey, path, {}).then((r) => statuses.push(r.status)));
    // The nine beyond the budget are answered while the three within it are still held on the account clock.
    await waitFor(
      'nine answers and three held',
      () => statuses.length === 9 && sb.deps.heldRequests.heldCount(accountId) === 3,
    );
    expect(statuses).toEqual(Array(9).fill(429));
    // A latency is wall time: 200 ms of the test's wall clock release the held three.
    sb.wall.ms += 200;
    await Promise.all(answers);
    expect(statuses.slice(9)).toEqual([200, 200, 200]);
    expect(await armed(path)).toBe(97);
  });

  it('an unknown key meets 401 before any fault of the path', async () => {
    const path = '/v1/card/list';
    await hostedAccountWithRule(5, { path, count: 10, respond: { httpStatus: 503, code: 9999 } });
    expect((await sb.post('sk_sandbox_unknown', path, {})).status).toBe(401);
    expect(await armed(path)).toBe(10);
  });
});
