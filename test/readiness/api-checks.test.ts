import { Agent, request as httpRequest } from 'node:http';
import { describe, expect } from 'vitest';
import { putWebhookConfig, sim } from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { behaviours, startReceiver } from '../helpers/webhook-receiver.js';
import { waitFor } from '../helpers/wait.js';
import { check, startRun, stopRun, type Report } from './calls.js';
import { listen } from '../helpers/loopback.js';

// Where each check draws its line, request by request. The calls go through the app in-process: a dropped answer
// still arrives here (only a socket shows the reset, see partners.test.ts), which lets a test play any client.

let sb: TestSandbox;
let acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const create = (body: Record<string, unknown>, key?: string) =>
  sb.post(acct.apiKey, '/v1/card/create', { currency: 'USDT', ...body }, key ? { 'Idempotency-Key': key } : {});

/** Runs `traffic` inside a fresh run's window and answers the stopped run's report. */
async function judged(traffic: () => Promise<unknown>): Promise<Report> {
  const run = await startRun(sb, acct.apiKey);
  await traffic();
  return stopRun(sb, acct.apiKey, run.runId);
}

const resultOf = (report: Report, id: string) => check(report, id).result;

describe('retry-after-dropped-response and retry-after-server-error', () => {
  it('drops only a write that succeeded: a refused keyed create keeps the drop armed for the next one', async () => {
    const report = await judged(async () => {
      expect((await create({ amount: 5000 }, 'too-much')).body.code).toBe(3001);
      expect((await create({ amount: 10 }, 'k1')).status).toBe(200); // dropped
      expect((await create({ amount: 10 }, 'k1')).status).toBe(500); // the retry gets the 500
      expect((await create({ amount: 10 }, 'k1')).headers['idempotent-replayed']).toBe('true');
    });
    expect(resultOf(report, 'retry-after-dropped-response')).toBe('pass');
    expect(resultOf(report, 'retry-after-server-error')).toBe('pass');
    expect((await sb.post(acct.apiKey, '/v1/card/list', {})).body.cardList).toHaveLength(1);
  });

  it('finds the retry by its key: an unrelated write in between is not taken for it', async () => {
    const report = await judged(async () => {
      await create({ amount: 10, alias: 'first' }, 'k1'); // dropped
      await create({ amount: 20, alias: 'other' }, 'k2'); // another card: gets the 500
      await create({ amount: 10, alias: 'first' }, 'k1'); // the retry of the first
      await create({ amount: 20, alias: 'other' }, 'k2'); // the retry of the second
    });
    expect(resultOf(report, 'retry-after-dropped-response')).toBe('pass');
    expect(resultOf(report, 'retry-after-server-error')).toBe('pass');
  });

  it('fails a retry with the same key and another body, and one with the same body and a new key', async () => {
    const report = await judged(async () => {
      await create({ amount: 10 }, 'k1'); // dropped
      expect((await create({ amount: 11 }, 'k1')).status).toBe(500); // same key, another body: gets the 500
      await create({ amount: 11 }, 'k2'); // its retry under a new key
    });
    expect(resultOf(report, 'retry-after-dropped-response')).toBe('fail');
    expect(resultOf(report, 'retry-after-server-error')).toBe('fail');
    // Each says which request it took for the retry, and what of it differed.
    const [dropped, itsRetry] = check(report, 'retry-after-dropped-response').evidence;
    expect(check(report, 'retry-after-dropped-response').paired).toBe(
      `${dropped} (the dropped answer) with ${itsRetry} (its retry, /v1/card/create), 0.00 s later: the same key, another body`,
    );
    expect(check(report, 'retry-after-server-error').paired).toMatch(
      /\(the 500\) with req_\S+ \(its retry, \/v1\/card\/create\), 0.00 s later: another key, the same body$/,
    );
  });

  it('a write never retried is nothing to observe (not_observed, naming the write), not a pass', async () => {
    const report = await judged(async () => {
      await create({ amount: 10 }, 'k1'); // dropped, and never retried
    });
    const c = check(report, 'retry-after-dropped-response');
    expect([c.result, c.evidence.length]).toEqual(['not_observed', 1]);
    expect(resultOf(report, 'retry-after-server-error')).toBe('not_observed');
  });
});

describe('waits-retry-after', () => {
  it.for([
    [1999, 'fail'],
    [2000, 'pass'],
    [20_000, 'pass'],
    [20_001, 'not_observed'],
  ] as const)('the next request %i ms after the 429: %s', async ([waitMs, result]) => {
    const report = await judged(async () => {
      expect((await sb.post(acct.apiKey, '/v1/bill/list', {})).status).toBe(429);
      sb.wall.ms += waitMs;
      await sim(sb, acct.apiKey, 'clock', {});
    });
    expect(resultOf(report, 'waits-retry-after')).toBe(result);
  });

  it('says which request it paired with the 429, and how far apart, on a pass too', async () => {
    const report = await judged(async () => {
      await sb.post(acct.apiKey, '/v1/bill/list', {});
      sb.wall.ms += 2310;
      await sim(sb, acct.apiKey, 'clock', {});
    });
    const c = check(report, 'waits-retry-after');
    expect(c.result).toBe('pass');
    const [throttled, next] = c.evidence;
    expect(c.paired).toBe(
      `${throttled} (the 429, Retry-After 2 s) with ${next} (the next request, /sandbox/v1/clock), 2.31 s later`,
    );
  });

  it('more than 10 times the Retry-After later tells nothing: not_observed, saying why', async () => {
    const report = await judged(async () => {
      await sb.post(acct.apiKey, '/v1/bill/list', {});
      sb.wall.ms += 25_000;
      await sim(sb, acct.apiKey, 'clock', {});
    });
    expect(check(report, 'waits-retry-after').advice).toMatch(
      /^The next request came 25.00 s after the 429, more than 10 times its Retry-After/,
    );
  });

  describe('over a connection', () => {
    let base: string;
    it.beforeEach(async () => void (base = await listen(sb.server)));

    /** A read through `agent`, as a partner's HTTP client sends it (a keep-alive agent keeps its connection). */
    const read = (agent: Agent, path = '/v1/card/list') =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          `${base}${path}`,
          { method: 'POST', agent, headers: { 'X-API-KEY': acct.apiKey, 'Content-Type': 'application/json' } },
          (res) => res.resume().on('end', () => resolve(res.statusCode!)),
        );
        req.on('error', reject);
        req.end('{}');
      });

    /** The run's record of when the throttled client closed its connection (null while it has not). */
    const goneMs = async (runId: string) =>
      (await sb.deps.store.value('SELECT throttle_gone_ms FROM readiness_runs WHERE id = ?', [runId])) as number | null;

    it('a client that closed its connection after the 429 (it crashed): its rerun 12 s later is not_observed', async () => {
      const run = await startRun(sb, acct.apiKey);
      const crashed = new Agent({ keepAlive: true });
      expect(await read(crashed)).toBe(429);
      const throttledAt = sb.wall.ms;
      crashed.destroy(); // the process exits: its connections close
      await waitFor('the server to see the client go', async () => (await goneMs(run.runId)) !== null);
      sb.wall.ms += 12_000;
      const rerun = new Agent({ keepAlive: true });
      expect(await read(rerun)).toBe(200);
      rerun.destroy();
      const c = check(await stopRun(sb, acct.apiKey, run.runId), 'waits-retry-after');
      expect(await goneMs(run.runId)).toBe(throttledAt);
      expect(c.result).toBe('not_observed');
      expect(c.advice).toMatch(
        /^The client that got the 429 closed its connection 0.00 s after it, and the next request came 12.00 s after the 429/,
      );
      expect(c.paired).toMatch(
        /, 12.00 s later, after the client had closed the connection of the 429 \(0.00 s after it\)$/,
      );
    });

    it('a client that keeps its connection through the wait passes', async () => {
      const run = await startRun(sb, acct.apiKey);
      const client = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        expect(await read(client)).toBe(429);
        sb.wall.ms += 2500;
        expect(await read(client)).toBe(200);
      } finally {
        client.destroy();
      }
      const c = check(await stopRun(sb, acct.apiKey, run.runId), 'waits-retry-after');
      expect([c.result, await goneMs(run.runId)]).toEqual(['pass', null]);
    });

    it('a client that waits too little fails, gone or not: the budget is the account’s', async () => {
      const run = await startRun(sb, acct.apiKey);
      const crashed = new Agent({ keepAlive: true });
      expect(await read(crashed)).toBe(429);
      crashed.destroy();
      await waitFor('the server to see the client go', async () => (await goneMs(run.runId)) !== null);
      sb.wall.ms += 300; // a restart loop
      const restarted = new Agent({ keepAlive: true });
      expect(await read(restarted)).toBe(200);
      restarted.destroy();
      expect(check(await stopRun(sb, acct.apiKey, run.runId), 'waits-retry-after').result).toBe('fail');
    });
  });
});

describe('no-tight-loop-on-inventory', () => {
  it.for([
    [5, 0, 'pass'],
    [6, 0, 'fail'],
    [6, 2000, 'pass'],
  ] as const)('%i repeats of card/create %i ms apart after a 4009: %s', async ([repeats, apartMs, result]) => {
    await sim(sb, acct.apiKey, 'inventory', { binId: 'VISA-EFI-454924', available: 0 });
    const report = await judged(async () => {
      for (let i = 0; i <= repeats; i++) {
        expect((await create({ amount: 10 })).body.code).toBe(4009);
        sb.wall.ms += apartMs;
      }
    });
    expect(resultOf(report, 'no-tight-loop-on-inventory')).toBe(result);
  });

  it('counts 4010 (provisioning) as 4009', async () => {
    await sim(sb, acct.apiKey, 'inventory', { binId: 'VISA-EFI-454924', provisioning: true });
    const report = await judged(async () => {
      for (let i = 0; i < 7; i++) expect((await create({ amount: 10 })).body.code).toBe(4010);
    });
    expect(check(report, 'no-tight-loop-on-inventory')).toMatchObject({ result: 'fail' });
    expect(check(report, 'no-tight-loop-on-inventory').evidence).toHaveLength(7);
  });
});

describe('the receiver checks', () => {
  it('count a refusal only once the receiver acknowledged the signed delivery: one refusing everything proves nothing', async () => {
    const rx = await startReceiver();
    rx.fallback = behaviours.status(500);
    try {
      await putWebhookConfig(sb, acct.apiKey, { url: rx.url });
      const report = await judged(async () => undefined);
      const signed = report.deliveries.find((d) => d.check === 'receiver-accepts-signed')!;
      expect(resultOf(report, 'receiver-accepts-signed')).toBe('fail');
      expect(resultOf(report, 'receiver-accepts-duplicate')).toBe('fail');
      for (const id of ['receiver-rejects-bad-signature', 'receiver-rejects-stale-timestamp']) {
        expect(check(report, id).result).toBe('not_observed');
        expect(check(report, id).evidence[0]).toBe(signed.deliveryId);
      }
    } finally {
      await rx.close();
    }
  });
});
