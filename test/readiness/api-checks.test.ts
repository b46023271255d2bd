import { describe, expect } from 'vitest';
import { putWebhookConfig, sim } from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { behaviours, startReceiver } from '../helpers/webhook-receiver.js';
import { check, startRun, stopRun, type Report } from './calls.js';

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
  ] as const)('the next request %i ms after the 429: %s', async ([waitMs, result]) => {
    const report = await judged(async () => {
      expect((await sb.post(acct.apiKey, '/v1/bill/list', {})).status).toBe(429);
      sb.wall.ms += waitMs;
      await sim(sb, acct.apiKey, 'clock', {});
    });
    expect(resultOf(report, 'waits-retry-after')).toBe(result);
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
