import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FAILURES } from '../../src/http/failure-throttle.js';
import { ADMIN_TOKEN, createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

// The failure throttle slows wrong credentials only (docs/hosted.md, "No lockout"): the right admin token is never
// refused by it, on the operator API nor on the /metrics scrape, whoever sent wrong ones from the same address. Behind
// a reverse proxy every client has the proxy's address, so ten wrong tokens a minute from anyone used to keep the
// operator, and Prometheus, out. Over a real socket: every request here comes from the loopback address.

let sb: TestSandbox;
afterEach(() => sb?.close());

const admin = (token: string) => request(sb.server).get('/admin/v1/accounts/-').set('Authorization', `Bearer ${token}`);
const scrape = (token: string) => request(sb.server).get('/metrics').set('Authorization', `Bearer ${token}`);

describe('the right admin token after ten wrong ones from its address', () => {
  it('is served on /admin/v1 and on /metrics, while a wrong one is 429 until the minute is over', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted' } });
    for (let i = 0; i < MAX_FAILURES; i++) expect((await admin(`wrong-token-${i}`)).status).toBe(401);
    const wrong = await scrape('wrong-token');
    expect(wrong.status).toBe(429);
    expect(Number(wrong.headers['retry-after'])).toBeGreaterThan(0);
    expect((await admin('wrong-token')).status).toBe(429);
    // No account "-": the right token reached the route.
    expect((await admin(ADMIN_TOKEN)).status).toBe(404);
    const metrics = await scrape(ADMIN_TOKEN);
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('sandbox_http_requests_total');
    expect(
      (await request(sb.server).post('/admin/v1/accounts').set('Authorization', `Bearer ${ADMIN_TOKEN}`).send({}))
        .status,
    ).toBe(201);
    sb.wall.ms += 60_000;
    expect((await admin('wrong-token')).status).toBe(401);
  });

  it('every scrape of a minute of wrong tokens from the same address is answered: none is ever locked out', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted' } });
    const statuses = new Map<number, number>();
    for (let i = 0; i < 5 * MAX_FAILURES; i++) {
      await admin(`wrong-token-${i}`);
      const res = await scrape(ADMIN_TOKEN);
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 5 * MAX_FAILURES });
  });
});
