import { describe, expect } from 'vitest';
import { putWebhookConfig, sim } from '../helpers/core.js';
import { fundedTest as it, sandboxTest } from '../helpers/fixtures.js';
import { START_MS, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';
import { behaviours, startReceiver } from '../helpers/webhook-receiver.js';
import { API_CHECKS, LEDGER_CHECKS, RECEIVER_CHECKS, getRun, results, startRun, stopRun } from './calls.js';

// readiness/run, get, stop and list as a partner calls them: ids, windows, refusals, and what a run leaves alone.

let sb: TestSandbox;
let acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const readiness = (key: string, op: 'run' | 'get' | 'stop' | 'list', body: unknown = {}) =>
  sb.post(key, `/sandbox/v1/readiness/${op}`, body);

describe('sandbox/v1/readiness/run', () => {
  it('starts a run of 600 s of wall time by default, with an rdy_ id and all eleven checks', async () => {
    const run = await startRun(sb, acct.apiKey);
    expect(run).toMatchObject({
      runId: expect.stringMatching(/^rdy_[0-9A-Za-z]{24}$/),
      status: 'running',
      startedAt: new Date(START_MS).toISOString(),
      endsAt: new Date(START_MS + 600_000).toISOString(),
      receiver: null,
      deliveries: [],
    });
    expect(run.checks.map((c) => c.id)).toEqual([...RECEIVER_CHECKS, ...API_CHECKS, ...LEDGER_CHECKS]);
  });

  it('with no traffic and no webhook observes nothing: every check not_observed, never pass', async () => {
    const run = await startRun(sb, acct.apiKey, { windowSeconds: 60 });
    const report = await stopRun(sb, acct.apiKey, run.runId);
    expect(report.status).toBe('done');
    expect(new Set(Object.values(results(report)))).toEqual(new Set(['not_observed']));
    for (const c of report.checks) expect(c.advice, c.id).toMatch(new RegExp(`See docs/readiness\\.md#${c.id}$`));
    expect(report.checks[0]!.advice).toMatch(/Configure the webhook \(PUT \/v1\/webhook\)/);
  });

  it('refuses a second run while one is running, naming it; once stopped, another starts', async () => {
    const first = await startRun(sb, acct.apiKey);
    const refused = await readiness(acct.apiKey, 'run', {});
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      code: 400,
      message: expect.stringContaining(`readiness run ${first.runId} is still running`),
    });
    await stopRun(sb, acct.apiKey, first.runId);
    expect((await readiness(acct.apiKey, 'run', {})).status).toBe(200);
  });

  it.each([
    [{ windowSeconds: 0 }, 'windowSeconds must be an integer between 1 and 86400'],
    [{ windowSeconds: 86_401 }, 'windowSeconds must be an integer between 1 and 86400'],
    [{ window: 60 }, 'window: unknown field'],
    [{ webhookUrl: 'ftp://partner.example.com/hooks' }, 'webhookUrl must be an https:// URL'],
  ])('refuses %j with a 400 naming the field, starting nothing', async (body, message) => {
    const res = await readiness(acct.apiKey, 'run', body);
    expect([res.status, res.body.code]).toEqual([400, 400]);
    expect(res.body.message).toContain(message);
    expect((await readiness(acct.apiKey, 'list')).body.runs).toEqual([]);
  });

  it("sends its test deliveries to webhookUrl, signed with the account's secret, never among its events or deliveries", async () => {
    const configured = await startReceiver();
    const other = await startReceiver();
    try {
      await putWebhookConfig(sb, acct.apiKey, { url: configured.url });
      await sim(sb, acct.apiKey, 'wallet/seed', { amount: 1 });
      const before = await Promise.all([
        sim(sb, acct.apiKey, 'events', { limit: 100 }),
        sim(sb, acct.apiKey, 'webhook/deliveries', {}),
      ]);
      const run = await startRun(sb, acct.apiKey, { webhookUrl: other.url });
      expect(run.receiver).toBe(other.url);
      const report = await stopRun(sb, acct.apiKey, run.runId);
      expect(report.deliveries).toHaveLength(5);
      expect(report.deliveries.every((d) => /^rdl_[0-9A-Za-z]{24}$/.test(d.deliveryId))).toBe(true);
      // Six requests (the duplicate twice), all to the webhookUrl, each an event envelope as real deliveries are.
      expect(other.received).toHaveLength(6);
      expect(configured.received).toHaveLength(0);
      const ids = new Set(other.received.map((r) => r.body.id));
      expect(ids).toEqual(new Set(report.deliveries.map((d) => d.eventId)));
      const after = await Promise.all([
        sim(sb, acct.apiKey, 'events', { limit: 100 }),
        sim(sb, acct.apiKey, 'webhook/deliveries', {}),
      ]);
      expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
      for (const id of ids) expect(JSON.stringify(after[0]!.body)).not.toContain(id);
    } finally {
      await configured.close();
      await other.close();
    }
  });
});

describe('readiness/get, readiness/stop, readiness/list', () => {
  it("answers 404 for an unknown runId and for another account's run", async () => {
    const other = await sb.account({ balance: 1 });
    const theirs = await startRun(sb, other.apiKey);
    for (const op of ['get', 'stop'] as const) {
      for (const runId of ['rdy_000000000000000000000000', theirs.runId]) {
        const res = await readiness(acct.apiKey, op, { runId });
        expect([op, res.status, res.body.code]).toEqual([op, 404, 404]);
      }
    }
    expect((await getRun(sb, other.apiKey, theirs.runId)).status).toBe('running');
  });

  it('are not recorded in the request log: polling a run never pushes out the requests it judges', async () => {
    const run = await startRun(sb, acct.apiKey);
    for (let i = 0; i < 3; i++) await getRun(sb, acct.apiKey, run.runId);
    await readiness(acct.apiKey, 'list');
    await stopRun(sb, acct.apiKey, run.runId);
    const paths = (await sim(sb, acct.apiKey, 'requests', { limit: 50 })).body.requests.map(
      (r: { path: string }) => r.path,
    );
    expect(paths).toEqual(['/sandbox/v1/readiness/stop', '/sandbox/v1/readiness/run']);
  });

  it('ends the window at its end without a stop: a get after endsAt answers the run done', async () => {
    const run = await startRun(sb, acct.apiKey, { windowSeconds: 30 });
    sb.wall.ms += 29_999;
    expect((await getRun(sb, acct.apiKey, run.runId)).status).toBe('running');
    sb.wall.ms += 1;
    const done = await getRun(sb, acct.apiKey, run.runId);
    expect(done).toMatchObject({ status: 'done', endsAt: new Date(START_MS + 30_000).toISOString() });
  });

  it('stop ends the window at the stop; a stopped run stays as it was', async () => {
    const run = await startRun(sb, acct.apiKey);
    sb.wall.ms += 5000;
    const stopped = await stopRun(sb, acct.apiKey, run.runId);
    expect(stopped.endsAt).toBe(new Date(START_MS + 5000).toISOString());
    sb.wall.ms += 5000;
    expect(await stopRun(sb, acct.apiKey, run.runId)).toEqual(stopped);
    expect(await getRun(sb, acct.apiKey, run.runId)).toEqual(stopped);
  });

  it("lists the account's last 10 runs, newest first", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const run = await startRun(sb, acct.apiKey, { windowSeconds: 1 });
      ids.push(run.runId);
      sb.wall.ms += 1000;
    }
    const res = await readiness(acct.apiKey, 'list');
    expect(res.body.runs.map((r: { runId: string }) => r.runId)).toEqual(ids.slice(2).reverse());
    expect(res.body.runs.every((r: { status: string }) => r.status === 'done')).toBe(true);
    expect((await readiness(acct.apiKey, 'get', { runId: ids[0] })).status).toBe(404);
  });
});

describe('a tenant (an account and its child sandboxes)', () => {
  it('has at most 10 runs with test deliveries on the wire: the 11th is a 429 with Retry-After, another tenant is served', async () => {
    const rx = await startReceiver();
    rx.fallback = behaviours.hang;
    try {
      const keys = [acct.apiKey];
      for (let i = 0; i < 10; i++) keys.push((await sim(sb, acct.apiKey, 'sandboxes/create', {})).body.apiKey);
      const other = await sb.account({ balance: 1 });
      for (const key of [...keys, other.apiKey]) await putWebhookConfig(sb, key, { url: rx.url });
      for (const key of keys.slice(0, 10)) await startRun(sb, key);
      const refused = await readiness(keys[10]!, 'run', {});
      expect([refused.status, refused.body.code, refused.headers['retry-after']]).toEqual([429, 429, '20']);
      expect((await readiness(keys[10]!, 'list')).body.runs).toEqual([]);
      expect((await readiness(other.apiKey, 'run', {})).status).toBe(200);
    } finally {
      await rx.close();
    }
  });
});

describe("the run's armed faults", () => {
  it("are apart from the account's own: not listed by faults, not cleared by faults/clear, and end with the run", async () => {
    const run = await startRun(sb, acct.apiKey);
    expect((await sim(sb, acct.apiKey, 'faults/clear')).status).toBe(200);
    const listed = await sim(sb, acct.apiKey, 'faults', { rules: [{ path: '/v1/bill/list', latencyMs: 1 }] });
    expect(listed.body.rules).toEqual([
      { path: '/v1/bill/list', count: 1, latencyMs: 1, dropResponse: false, hold: false },
    ]);
    const throttled = await sb.post(acct.apiKey, '/v1/card/list', {});
    expect([throttled.status, throttled.body.code, throttled.headers['retry-after']]).toEqual([429, 429, '2']);
    expect((await sb.post(acct.apiKey, '/v1/card/list', {})).status).toBe(200);
    await stopRun(sb, acct.apiKey, run.runId);
    // The 500 armed after a dropped response never fell: it ends with the run, as the drop does.
    const key = { 'Idempotency-Key': 'after-the-run' };
    const created = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' }, key);
    expect(created.status).toBe(200);
  });

  it('fall on the calling account only', async () => {
    const other = await sb.account({ balance: 100 });
    await startRun(sb, acct.apiKey);
    expect((await sb.post(other.apiKey, '/v1/card/list', {})).status).toBe(200);
    expect((await sb.post(acct.apiKey, '/v1/card/list', {})).status).toBe(429);
  });
});

describe('readiness with the request log off', () => {
  sandboxTest.override({ sandboxOptions: { config: { requestLog: false } } });

  sandboxTest('judges no API use (not_observed, saying why) and arms nothing', async ({ sb: s, acct: a }) => {
    const run = await startRun(s, a.apiKey);
    expect((await s.post(a.apiKey, '/v1/card/list', {})).status).toBe(200);
    const report = await getRun(s, a.apiKey, run.runId);
    expect(report.status).toBe('done');
    for (const id of API_CHECKS) {
      const c = report.checks.find((x) => x.id === id)!;
      expect([c.result, c.advice]).toEqual(['not_observed', expect.stringContaining('request log off')]);
    }
  });
});

describe('readiness in hosted mode', () => {
  sandboxTest.override({ sandboxOptions: { config: { mode: 'hosted' } } });

  sandboxTest.for(['https://127.0.0.1/hooks', 'https://10.0.0.8/hooks', 'https://[::1]/hooks'])(
    'refuses the private webhookUrl %s, as PUT /v1/webhook does',
    async (webhookUrl, { sb: s, acct: a }) => {
      const res = await s.post(a.apiKey, '/sandbox/v1/readiness/run', { webhookUrl });
      expect([res.status, res.body.code]).toEqual([400, 400]);
      expect(res.body.message).toMatch(/^webhookUrl must resolve to public unicast addresses only/);
      const put = await putWebhookConfig(s, a.apiKey, { url: webhookUrl });
      expect(put.status).toBe(400);
    },
  );
});

describe('a deleted child sandbox', () => {
  it('takes its runs and their deliveries with it', async () => {
    const rx = await startReceiver();
    try {
      const child = (await sim(sb, acct.apiKey, 'sandboxes/create', {})).body;
      await putWebhookConfig(sb, child.apiKey, { url: rx.url });
      const run = await startRun(sb, child.apiKey);
      await stopRun(sb, child.apiKey, run.runId);
      const rows = (table: string) =>
        sb.deps.store.value(`SELECT COUNT(*) FROM ${table} WHERE account_id = ?`, [child.accountId]);
      expect([await rows('readiness_runs'), await rows('readiness_deliveries')]).toEqual([1, 5]);
      expect((await sim(sb, acct.apiKey, 'sandboxes/delete', { accountId: child.accountId })).status).toBe(200);
      expect([await rows('readiness_runs'), await rows('readiness_deliveries')]).toEqual([0, 0]);
    } finally {
      await rx.close();
    }
  });
});
