import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { requestFor, unknownFieldRequest, type FuzzRequest } from './arbitraries.js';
import type { Config } from '../../src/config.js';
import { createWorld, snapshot, type World } from './world.js';
import { propertyRuns } from '../helpers/property-runs.js';

// FUZZ_RUNS arbitrary requests in total (CI 2,000; `npm run test:fuzz` 100,000), in batches of 1,000 on a fresh
// sandbox each so the state digests stay cheap. The seed is printed by fast-check on failure.
const RUNS = propertyRuns(Number(process.env.FUZZ_RUNS ?? 2000));
const BATCH = 1000;

async function send(world: World, r: FuzzRequest): Promise<{ status: number; text: string; type: string }> {
  const res = await world.app.request(r.url, { method: r.method, headers: r.headers, body: r.body });
  return { status: res.status, text: await res.text(), type: res.headers.get('content-type') ?? '' };
}

/** `runs` arbitrary requests in batches; answers what the runs reached (HTTP status and code, with counts). */
async function fuzz(runs: number, overrides: Partial<Config> = {}): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  for (let done = 0; done < runs; done += BATCH) {
    const world = await createWorld(overrides);
    try {
      await fc.assert(
        fc.asyncProperty(requestFor(world), async (r) => {
          const before = await snapshot(world.deps);
          const res = await send(world, r);
          const where = `${r.method} ${r.url} -> ${res.status} ${res.text.slice(0, 200)}`;
          expect(res.status, where).toBeLessThan(500);
          expect(res.type, where).toMatch(/^application\/json/);
          const body = JSON.parse(res.text);
          const tally = `${res.status} ${body.code ?? ''}`;
          seen.set(tally, (seen.get(tally) ?? 0) + 1);
          if (res.status >= 400) {
            expect(Number.isInteger(body.code) && body.code !== 0, where).toBe(true);
            expect(typeof body.message, where).toBe('string');
            expect(await snapshot(world.deps), `state changed on ${where}`).toBe(before);
          }
        }),
        { numRuns: Math.min(BATCH, runs - done) },
      );
    } finally {
      await world.close();
    }
  }
  return seen;
}

describe('every endpoint under arbitrary bodies, headers and query strings', () => {
  it(
    'never answers 5xx, always answers JSON ({code, message} on an error), and changes nothing on a 4xx',
    async () => {
      const seen = await fuzz(RUNS);
      // What the runs reached (HTTP status and code), so a fuzzer stuck at the front door shows.
      console.log(
        '[fuzz] answers:',
        [...seen]
          .sort((x, y) => y[1] - x[1])
          .map(([k, n]) => `${k}: ${n}`)
          .join(', '),
      );
      expect([...seen.keys()].some((k) => k.startsWith('200'))).toBe(true);
    },
    30_000 + RUNS * 20,
  );

  it(
    'refuses an unknown field of a simulation or operator body with a 400 naming it, and changes nothing (design section 12)',
    async () => {
      const world = await createWorld();
      try {
        await fc.assert(
          fc.asyncProperty(unknownFieldRequest(world), async (r) => {
            const before = await snapshot(world.deps);
            const res = await send(world, r);
            const where = `${r.method} ${r.url} ${r.body} -> ${res.status} ${res.text.slice(0, 200)}`;
            expect(res.status, where).toBe(400);
            const body = JSON.parse(res.text);
            expect(body.code, where).toBe(400);
            // The field named is one the body has and the schema does not (or a misspelt field inside a known one).
            const named = /^([^:]+): unknown field \(/.exec(body.message)?.[1] ?? '';
            expect(r.unknown.includes(named) || /[.[]/.test(named), where).toBe(true);
            expect(await snapshot(world.deps), `state changed on ${where}`).toBe(before);
          }),
          { numRuns: Math.max(200, Math.round(RUNS / 10)) },
        );
      } finally {
        await world.close();
      }
    },
    30_000 + RUNS * 20,
  );

  it(
    'in hosted mode, with the keys of an account and its child sandbox (one tenant), never answers 5xx',
    async () => {
      // A rate limit no run reaches: the budgets themselves have their own tests (test/hosted).
      const seen = await fuzz(Math.max(500, Math.round(RUNS / 4)), { mode: 'hosted', rateLimitPerSecond: 1_000_000 });
      console.log('[fuzz] hosted answers:', [...seen].map(([k, n]) => `${k}: ${n}`).join(', '));
      expect([...seen.keys()].some((k) => k.startsWith('200'))).toBe(true);
    },
    30_000 + RUNS * 20,
  );

  it('reaches every route of the app', async () => {
    const world = await createWorld();
    try {
      expect(world.routes.length).toBeGreaterThan(20);
      expect(world.routes).toContainEqual({ method: 'POST', path: '/v1/card/deposit' });
    } finally {
      await world.close();
    }
  });
});
