import { afterEach, describe, expect, it } from 'vitest';
import { readIndex } from '../../src/contracts/files.js';
import { createApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { putWebhookConfig } from '../helpers/core.js';
import { ADMIN_TOKEN, createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { behaviours, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { onPostgres } from '../helpers/postgres.js';

// GET /metrics: the exposition a Prometheus server scrapes, parsed here by a reader of the text format written for
// this test (not prom-client's), and judged against what the test sent.

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (`name{a="x",b="y"} 1.5`); comment lines skipped. */
function parseExposition(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample line: ${line}`);
      const labels: Record<string, string> = {};
      for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
        labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, ch: string) => (ch === 'n' ? '\n' : ch));
      }
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

let sb: TestSandbox;
let rx: Receiver | undefined;

afterEach(async () => {
  await rx?.close();
  rx = undefined;
  await sb?.close();
});

async function scrape(headers: Record<string, string> = {}): Promise<Sample[]> {
  let req = sb.request.get('/metrics');
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  const res = await req;
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(res.text);
}

const value = (samples: Sample[], name: string, labels: Record<string, string> = {}) =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

describe('GET /metrics', () => {
  it('counts every answer under its contract operation and status, and times each in the histogram', async () => {
    sb = createTestSandbox();
    const acct = await sb.account({ balance: 100 });
    const before = await scrape();
    for (let i = 0; i < 5; i++) expect((await sb.post(acct.apiKey, '/v1/wallet/assetList')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await sb.post('sk_sandbox_wrong', '/v1/wallet/assetList')).status).toBe(401);
    expect((await sb.post(acct.apiKey, '/v1/card/detail', { cardId: '12' })).status).toBe(400);
    const after = await scrape();

    const requests = (operation: string, status: string) =>
      value(after, 'sandbox_http_requests_total', { operation, status }) -
      value(before, 'sandbox_http_requests_total', { operation, status });
    expect(requests('POST /v1/wallet/assetList', '200')).toBe(5);
    expect(requests('POST /v1/wallet/assetList', '401')).toBe(3);
    expect(requests('POST /v1/card/detail', '400')).toBe(1);

    // The histogram: cumulative buckets ending in +Inf, which equals _count; the count is every answer.
    const op = { operation: 'POST /v1/wallet/assetList' };
    const buckets = after
      .filter((s) => s.name === 'sandbox_http_request_duration_seconds_bucket' && s.labels.operation === op.operation)
      .map((s) => ({ le: s.labels.le!, value: s.value }));
    expect(buckets.at(-1)).toEqual({ le: '+Inf', value: 8 });
    const bounds = buckets.slice(0, -1).map((b) => Number(b.le));
    expect(bounds).toEqual([...bounds].sort((a, b) => a - b));
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    expect(value(after, 'sandbox_http_request_duration_seconds_count', op)).toBe(8);
    expect(value(after, 'sandbox_http_request_duration_seconds_sum', op)).toBeGreaterThan(0);
  });

  it('names the instance that answered, as /healthz does, and its store', async () => {
    sb = createTestSandbox();
    const { instance } = (await sb.request.get('/healthz')).body as { instance: string };
    expect((await scrape()).filter((s) => s.name === 'sandbox_instance_info')).toEqual([
      {
        name: 'sandbox_instance_info',
        labels: { instance_id: instance, store: onPostgres ? 'postgres' : 'sqlite' },
        value: 1,
      },
    ]);
  });

  it('keeps its labels to a fixed set under traffic from many tenants: no account id, key, path or parameter', async () => {
    sb = createTestSandbox();
    const secrets: string[] = [];
    const seriesAfter: number[] = [];
    // The scrape's own series exist from here on; the process's (a kind of GC seen for the first time) are not counted.
    await scrape();
    const ours = (samples: Sample[]) => samples.filter((s) => s.name.startsWith('sandbox_')).length;
    for (const round of [0, 1]) {
      for (let t = 0; t < 15; t++) {
        const acct = await sb.account({ balance: 10 });
        secrets.push(acct.accountId, acct.apiKey, acct.keyId);
        await sb.post(acct.apiKey, '/v1/wallet/assetList');
        await sb.post(acct.apiKey, '/v1/card/detail', { cardId: `card-${acct.accountId}` });
        await sb.admin('get', `/admin/v1/accounts/${acct.accountId}`);
        await sb.admin('post', `/admin/v1/accounts/${acct.accountId}/keys`, {});
        // Paths no route has: each carries the tenant's own id and key, and a number never sent twice.
        await sb.post(acct.apiKey, `/v1/${acct.apiKey}/${t}`);
        await sb.request.get(`/unknown/${acct.accountId}/${round}-${t}`);
        await sb.request.get(`/console/${acct.keyId}`);
      }
      seriesAfter.push(ours(await scrape()));
    }
    const samples = await scrape();
    // The same kinds of request from 15 more tenants made no new series.
    expect(seriesAfter[1]).toBe(seriesAfter[0]);
    const text = samples.map((s) => JSON.stringify(s.labels)).join('\n');
    for (const s of secrets) expect(text).not.toContain(s);
    const operations = new Set(samples.filter((s) => s.labels.operation).map((s) => s.labels.operation));
    const allowed = new Set([...Object.keys(readIndex().operations), 'GET /metrics', 'console', 'docs', 'unmatched']);
    for (const o of operations) expect(allowed).toContain(o);
    expect(operations).toContain('GET /admin/v1/accounts/{id}');
    expect(operations).toContain('unmatched');
    for (const s of samples.filter((x) => x.labels.status)) expect(s.labels.status).toMatch(/^([1-5]\d\d|fault)$/);
  });

  it('folds every answer an injected fault made into one status label, fault, whatever status the rule names', async () => {
    sb = createTestSandbox();
    const acct = await sb.account({ balance: 10 });
    // The statuses a tenant may choose (400 to 599; 401 and 403 have bodies of their own in the contract), each
    // answered once on the same operation.
    const statuses = Array.from({ length: 200 }, (_, i) => 400 + i).filter((s) => s !== 401 && s !== 403);
    const rules = statuses.map((httpStatus) => ({ path: '/v1/wallet/assetList', respond: { httpStatus, code: 9999 } }));
    for (let i = 0; i < rules.length; i += 50) {
      const batch = rules.slice(i, i + 50);
      expect((await sb.post(acct.apiKey, '/sandbox/v1/faults', { rules: batch })).status).toBe(200);
      for (let j = 0; j < batch.length; j++) await sb.post(acct.apiKey, '/v1/wallet/assetList');
    }
    await sb.post(acct.apiKey, '/v1/wallet/assetList');
    const samples = await scrape();
    const counted = samples
      .filter((s) => s.name === 'sandbox_http_requests_total' && s.labels.operation === 'POST /v1/wallet/assetList')
      .map((s) => [s.labels.status, s.value]);
    expect(Object.fromEntries(counted)).toEqual({ fault: statuses.length, 200: 1 });
  });

  it('counts refusals by budget without a tenant label', async () => {
    sb = createTestSandbox({ config: { mode: 'hosted', rateLimitPerSecond: 1, rateLimitHoldMs: 0 } });
    const tenants = [await sb.account({ balance: 1 }), await sb.account({ balance: 1 })];
    // The wall clock stands still: each tenant's one token is spent by its first request.
    for (const t of tenants) {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await sb.post(t.apiKey, '/v1/wallet/assetList')).status);
      expect(statuses).toEqual([200, 429, 429]);
    }
    const samples = await scrape({ Authorization: `Bearer ${ADMIN_TOKEN}` });
    const refusals = samples.filter((s) => s.name === 'sandbox_tenant_refusals_total');
    expect(Object.fromEntries(refusals.map((s) => [s.labels.budget, s.value]))).toEqual({
      rate: 4,
      in_flight: 0,
      connections: 0,
      request_log: 0,
      sessions: 0,
    });
    for (const s of refusals) expect(Object.keys(s.labels)).toEqual(['budget']);
  });

  it('counts webhook attempts by result and shows the pending deliveries', async () => {
    sb = createTestSandbox();
    const acct = await sb.account({ balance: 1000 });
    rx = await startReceiver();
    rx.queue.push(behaviours.status(500));
    expect((await putWebhookConfig(sb, acct.apiKey, { url: rx.url })).status).toBe(200);
    expect((await sb.post(acct.apiKey, '/v1/card/create', { amount: 50, currency: 'USDT' })).status).toBe(200);
    const pending = await scrape();
    expect(value(pending, 'sandbox_webhook_delivery_backlog')).toBe(1);
    expect(value(pending, 'sandbox_jobs_due')).toBe(1);
    await sb.advance(acct.apiKey, 0); // the first attempt: 500
    await sb.advance(acct.apiKey, 60); // the retry: 200
    const samples = await scrape();
    expect(rx.received).toHaveLength(2);
    const results = samples.filter((s) => s.name === 'sandbox_webhook_deliveries_total');
    expect(Object.fromEntries(results.map((s) => [s.labels.result, s.value]))).toEqual({
      delivered: 1,
      failed: 1,
      gave_up: 0,
    });
    expect(value(samples, 'sandbox_webhook_delivery_backlog')).toBe(0);
  });

  it("includes the process's own figures: event-loop lag, heap, CPU, and the request log's bytes", async () => {
    sb = createTestSandbox();
    const acct = await sb.account({ balance: 1 });
    await sb.post(acct.apiKey, '/v1/wallet/assetList');
    const names = new Set((await scrape()).map((s) => s.name));
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'process_cpu_user_seconds_total',
      'sandbox_request_log_bytes',
    ]) {
      expect(names).toContain(name);
    }
  });
});

describe('who may read GET /metrics', () => {
  const hosted: Partial<Config> = { mode: 'hosted' };

  it.each([
    ['no token', {}, 401],
    ['a wrong token', { Authorization: 'Bearer not-the-token-at-all' }, 401],
    ['the admin token', { Authorization: `Bearer ${ADMIN_TOKEN}` }, 200],
  ])('hosted mode answers a request with %s %i', async (_, headers, status) => {
    sb = createTestSandbox({ config: hosted });
    let req = sb.request.get('/metrics');
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    const res = await req;
    expect(res.status).toBe(status);
    if (status !== 200) expect(res.text).not.toContain('sandbox_http_requests_total');
  });

  it.each([
    ['127.0.0.1', undefined, 200],
    ['::1', undefined, 200],
    ['::ffff:127.0.0.1', undefined, 200],
    ['10.1.2.3', undefined, 403],
    ['203.0.113.9', undefined, 403],
    ['203.0.113.9', `Bearer ${ADMIN_TOKEN}`, 200],
    ['203.0.113.9', 'Bearer wrong-token-wrong-token', 401],
  ])('local mode answers a client at %s (Authorization %s) %i', async (address, authorization, status) => {
    sb = createTestSandbox();
    const app = createApp(sb.deps);
    const headers: Record<string, string> = authorization ? { Authorization: authorization } : {};
    const res = await app.fetch(new Request('http://sandbox/metrics', { headers }), {
      incoming: { socket: { remoteAddress: address } },
    } as never);
    expect(res.status).toBe(status);
    if (status === 403) expect(((await res.json()) as { code: number }).code).toBe(403);
  });
});
