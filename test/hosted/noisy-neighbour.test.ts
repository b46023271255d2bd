import { afterAll, describe, expect, it } from 'vitest';
import { noisyNeighbour, type NoisyResult } from '../../bench/lib/noisy.mjs';
import { HOSTED_ADMIN_TOKEN, startHosted, type HostedServer } from './server.js';

// The short version of `npm run bench:hosted`: 20 well-behaved tenants beside 2 abusive ones on one
// hosted server. It asserts outcomes only, never a latency: every abuse is refused or bounded, nothing answers
// 5xx, every well-behaved request is answered 200.

let server: HostedServer | undefined;
afterAll(async () => {
  await server?.close(0);
});

const fiveXx = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .filter(([status]) => Number(status) >= 500)
    .reduce((n, [, count]) => n + count, 0);

/** The answers outside `allowed`, by status: {} when every answer was one of them. */
const besides = (statuses: Record<string, number>, allowed: string[]) =>
  Object.fromEntries(Object.entries(statuses).filter(([status]) => !allowed.includes(status)));

/**
 * An abuser may also be cut short: 429 past its rate limit, 408 past the request timeout (a 1 MB upload on a busy
 * machine), or its connection closed before it read the answer (0: the server answered and closed while the
 * client was still writing).
 */
const BOUNDED = ['429', '408', '0'];

/**
 * The run, once for the whole file and shared explicitly: each test awaits it, so any test alone (a `-t` filter)
 * runs it too, and no test depends on another having run first.
 */
let run: Promise<NoisyResult> | undefined;
function scenario(): Promise<NoisyResult> {
  run ??= (async () => {
    // Short timeouts so the server cuts slow and idle clients within the run; the rate limit as in hosted mode.
    server = await startHosted({ headersTimeoutMs: 3_000, requestTimeoutMs: 6_000 }, 'warn', 50);
    return noisyNeighbour({
      baseUrl: server.url,
      adminToken: HOSTED_ADMIN_TOKEN,
      requestsPerTenant: 10,
      intervalMs: 100,
      idle: 100,
      slowBodies: 5,
      floodParallel: 8,
      trickleMs: 200,
      waitForCutsMs: 60_000,
    });
  })();
  return run;
}

describe('noisy neighbours in hosted mode', { timeout: 180_000 }, () => {
  it('runs 20 tenants beside 2 abusers (deep JSON, huge bodies, fault floods, slow bodies, idle connections)', async () => {
    const result = await scenario();
    expect(result.quiet.requests).toBe(200);
    expect(result.noisy.requests).toBe(200);
  });

  it('answers every well-behaved request 200, alone and beside the abusers', async () => {
    const result = await scenario();
    expect(result.quiet.statuses).toEqual({ 200: 200 });
    expect(result.noisy.statuses).toEqual({ 200: 200 });
  });

  it('refuses deep JSON with 400 before parsing it, or cuts it short', async () => {
    const result = await scenario();
    expect(result.outcomes.deepJson['400']).toBeGreaterThan(0);
    expect(besides(result.outcomes.deepJson, ['400', ...BOUNDED])).toEqual({});
  });

  it('refuses huge bodies (declared or chunked) with 413, or cuts them short', async () => {
    const result = await scenario();
    for (const kind of ['hugeDeclared', 'hugeChunked']) {
      expect(besides(result.outcomes[kind], ['413', ...BOUNDED]), kind).toEqual({});
      expect(result.outcomes[kind]['413'], kind).toBeGreaterThan(0);
    }
  });

  it('answers a fault-rule flood with the injected 4xx or the delayed answer, or cuts it short', async () => {
    const result = await scenario();
    expect(besides(result.outcomes.faultFlood, ['200', '400', ...BOUNDED])).toEqual({});
  });

  it('cuts every slow body with 408 and closes every idle connection', async () => {
    const result = await scenario();
    expect(result.outcomes.slowBodies).toEqual({ 408: 5 });
    expect(result.outcomes.idleConnections).toMatchObject({ stillOpen: 0 });
  });

  it('answers nothing 5xx', async () => {
    const result = await scenario();
    const all = [result.quiet.statuses, result.noisy.statuses, ...Object.values(result.outcomes)];
    expect(all.map(fiveXx)).toEqual(all.map(() => 0));
  });
});
