import { describe, expect } from 'vitest';
import { putWebhookConfig, sim } from '../helpers/core.js';
import { PartnerLedger } from '../helpers/partner-ledger.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import { waitFor } from '../helpers/wait.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import {
  API_CHECKS,
  LEDGER_CHECKS,
  RECEIVER_CHECKS,
  check,
  getRun,
  results,
  startRun,
  stopRun,
  type Report,
} from './calls.js';
import {
  CarelessClient,
  GoodClient,
  OutOfInventory,
  carelessReceiver,
  goodReceiver,
  type PartnerReceiver,
} from './partners.js';
import { listen } from '../helpers/loopback.js';

// The readiness report grades two partner integrations written in test/readiness/partners.ts: the good one passes
// every check, the careless one fails each check it should, with evidence a partner can open (the request log, or
// the report's own deliveries).

let sb: TestSandbox;
let acct: AccountHandle;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

const DEFAULT_BIN = 'VISA-EFI-454924';

/** A receiver configured as the account's webhook; the good one verifies with the secret PUT answered. */
async function withReceiver(kind: 'good' | 'careless'): Promise<PartnerReceiver> {
  let secret = '';
  const rx =
    kind === 'good'
      ? await goodReceiver(
          () => secret,
          () => sb.wall.ms / 1000,
        )
      : await carelessReceiver();
  const res = await putWebhookConfig(sb, acct.apiKey, { url: rx.url });
  expect(res.status).toBe(200);
  secret = res.body.secret;
  return rx;
}

/** The partner's code waits on the sandbox's fake wall clock: no test sleeps. */
const transport = async () => ({
  baseUrl: await listen(sb.server),
  apiKey: acct.apiKey,
  sleep: async (ms: number) => void (sb.wall.ms += ms),
});

/**
 * What a partner's test run exercises in the window: writes, a read, then card/create against an empty inventory.
 * Answers the card it made.
 */
async function exercise(client: GoodClient | CarelessClient): Promise<string> {
  const created = await client.createCard(20);
  expect(created.status).toBe(200);
  expect((await client.deposit(created.body.cardId, 5)).status).toBe(200);
  expect((await client.read('/v1/card/list')).status).toBe(200);
  expect((await sim(sb, acct.apiKey, 'inventory', { binId: DEFAULT_BIN, available: 0 })).status).toBe(200);
  await client.createCard(20).catch((err: unknown) => {
    if (!(err instanceof OutOfInventory)) throw err;
  });
  return created.body.cardId;
}

/**
 * The good partner proves its ledger: a day of traffic on its card, the events its receiver processed folded into
 * its ledger with what it funded (20 and a top-up of 5 at the account's 0 % fee), posted to readiness/ledger.
 */
async function postLedgerAfterTraffic(rx: PartnerReceiver, cardId: string): Promise<void> {
  const cards = [await ledgerAfterTraffic(rx, cardId)];
  expect((await sim(sb, acct.apiKey, 'readiness/ledger', { cards })).body).toMatchObject({ result: 'pass' });
}

/** A day of traffic on the card, then the card as the partner's ledger has it (what readiness/ledger takes). */
async function ledgerAfterTraffic(rx: PartnerReceiver, cardId: string) {
  expect((await sim(sb, acct.apiKey, 'traffic/start', { days: 1, perCardPerDay: 8, seed: 2 })).status).toBe(200);
  await sb.advance(acct.apiKey, 2 * 86_400);
  const ledger = new PartnerLedger();
  ledger.fund(cardId, 25_000_000);
  ledger.fold(rx.events);
  const { available, frozen } = ledger.asset(cardId);
  const figure = (micros: number) => String(micros / 1_000_000);
  return { cardId, availableAmount: figure(available), frozenAmount: figure(frozen) };
}

/** Each evidence id opens: a request id in the request log, a delivery id among the report's deliveries. */
async function expectEvidenceResolves(report: Report, id: string): Promise<void> {
  const { evidence } = check(report, id);
  expect(evidence.length, id).toBeGreaterThan(0);
  for (const e of evidence) {
    if (e.startsWith('rdl_')) {
      expect(
        report.deliveries.map((d) => d.deliveryId),
        id,
      ).toContain(e);
    } else {
      const res = await sb.post(acct.apiKey, '/sandbox/v1/requests/get', { requestId: e });
      expect(res.status, `${id}: ${e}`).toBe(200);
    }
  }
}

describe('a good integration', () => {
  it('passes every check: its receiver verifies, its client keys, retries safely, waits and backs off', async () => {
    const rx = await withReceiver('good');
    try {
      const run = await startRun(sb, acct.apiKey);
      expect(run).toMatchObject({ status: 'running', receiver: rx.url });
      const client = new GoodClient(await transport());
      const cardId = await exercise(client);
      await postLedgerAfterTraffic(rx, cardId);
      const report = await stopRun(sb, acct.apiKey, run.runId);
      expect(report.status).toBe('done');
      expect(results(report)).toEqual(
        Object.fromEntries([...RECEIVER_CHECKS, ...API_CHECKS, ...LEDGER_CHECKS].map((id) => [id, 'pass'])),
      );
      for (const c of report.checks) expect(c.advice, c.id).toBeNull();
      // The duplicate was processed once and acknowledged twice; the three forged ones were never processed.
      expect(rx.processed.filter((id) => report.deliveries.some((d) => d.eventId === id))).toHaveLength(2);
      expect(rx.answered.filter((s) => s === 400)).toHaveLength(3);
      // The dropped create was replayed, not made twice: one card from the retries, the 4009 made none.
      expect((await client.read('/v1/card/list')).body.cardList).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });
});

describe('a careless integration', () => {
  it('fails the three receiver checks a receiver that accepts everything fails, each with its delivery', async () => {
    const rx = await withReceiver('careless');
    try {
      const run = await startRun(sb, acct.apiKey);
      const report = await stopRun(sb, acct.apiKey, run.runId);
      expect(results(report)).toMatchObject({
        'receiver-accepts-signed': 'pass',
        'receiver-rejects-bad-signature': 'fail',
        'receiver-rejects-stale-timestamp': 'fail',
        'receiver-rejects-tampered-body': 'fail',
        'receiver-accepts-duplicate': 'pass',
      });
      for (const id of RECEIVER_CHECKS) await expectEvidenceResolves(report, id);
      const forged = report.deliveries.find((d) => d.check === 'receiver-rejects-bad-signature')!;
      expect(check(report, 'receiver-rejects-bad-signature').evidence).toEqual([forged.deliveryId]);
      expect(forged.attempts).toEqual([
        { time: expect.any(String), status: 200, latencyMs: expect.any(Number), error: null },
      ]);
      expect(check(report, 'receiver-rejects-bad-signature').advice).toMatch(
        /constant time.*See docs\/readiness\.md#receiver-rejects-bad-signature$/,
      );
    } finally {
      await rx.close();
    }
  });

  it('fails every API-use check, each with request ids that open in the request log', async () => {
    const run = await startRun(sb, acct.apiKey);
    const client = new CarelessClient(await transport());
    await exercise(client);
    const report = await stopRun(sb, acct.apiKey, run.runId);
    expect(results(report)).toMatchObject(Object.fromEntries(API_CHECKS.map((id) => [id, 'fail'])));
    for (const id of API_CHECKS) {
      await expectEvidenceResolves(report, id);
      expect(check(report, id).advice, id).toMatch(new RegExp(`See docs/readiness\\.md#${id}$`));
    }
    const records = async (ids: string[]) =>
      Promise.all(
        ids.map(async (requestId) => (await sb.post(acct.apiKey, '/sandbox/v1/requests/get', { requestId })).body),
      );
    // The top-up without a key is named; the retries of the lost and of the failed create each used a new key.
    const [keyless] = await records(check(report, 'idempotency-key-on-writes').evidence);
    expect([keyless.path, keyless.idempotencyKey]).toEqual(['/v1/card/deposit', null]);
    for (const id of ['retry-after-dropped-response', 'retry-after-server-error']) {
      const [faulted, retry] = await records(check(report, id).evidence);
      expect(retry.path).toBe(faulted.path);
      expect(retry.request.body).toEqual(faulted.request.body);
      expect(retry.idempotencyKey).not.toBe(faulted.idempotencyKey);
    }
    const [throttled, next] = await records(check(report, 'waits-retry-after').evidence);
    expect([throttled.status, throttled.response.headers['retry-after']]).toEqual([429, '2']);
    expect(Date.parse(next.time) - Date.parse(throttled.time)).toBeLessThan(2000);
    const loop = await records(check(report, 'no-tight-loop-on-inventory').evidence);
    expect(loop[0].responseCode).toBe(4009);
    expect(loop.length).toBeGreaterThan(6);
    // The new key per retry made a second card of the one create whose answer was lost.
    expect((await client.read('/v1/card/list')).body.cardList).toHaveLength(2);
  });
});

describe('a run ends as soon as every check is decided', () => {
  /** The good partner's whole exercise; answers its card and the ledger it would post (what its events fold to). */
  async function exerciseAll(rx: PartnerReceiver) {
    return ledgerAfterTraffic(rx, await exercise(new GoodClient(await transport())));
  }

  /** Reads the run until its test deliveries have all answered (they go out after readiness/run's answer). */
  async function deliveriesAnswered(runId: string): Promise<Report> {
    return waitFor('every test delivery answered', async () => {
      const run = await getRun(sb, acct.apiKey, runId);
      return (
        run.deliveries.every((d) => d.attempts.length >= (d.check === 'receiver-accepts-duplicate' ? 2 : 1)) && run
      );
    });
  }

  it('ends at the first read that finds every check decided, long before its window, saying so', async () => {
    const rx = await withReceiver('good');
    try {
      const run = await startRun(sb, acct.apiKey, { windowSeconds: 3600 });
      expect(run).toMatchObject({ fullWindow: false, endedBy: null });
      const card = await exerciseAll(rx);
      // A ledger that disagrees is no decision: the partner's ledger may lag its events, and may post again.
      const wrong = { ...card, availableAmount: '0.01' };
      expect((await sim(sb, acct.apiKey, 'readiness/ledger', { cards: [wrong] })).body).toMatchObject({
        result: 'fail',
      });
      const pending = await deliveriesAnswered(run.runId);
      expect(pending).toMatchObject({ status: 'running', endedBy: null });
      expect(check(pending, 'ledger-agrees').result).toBe('fail');
      expect(pending.checks.filter((c) => c.result === 'not_observed')).toEqual([]);
      // The post that agrees decides the last check: the next read ends the run, at once.
      expect((await sim(sb, acct.apiKey, 'readiness/ledger', { cards: [card] })).body).toMatchObject({
        result: 'pass',
      });
      const ended = await getRun(sb, acct.apiKey, run.runId);
      expect(ended).toMatchObject({ status: 'done', endedBy: 'decided' });
      expect(Date.parse(ended.endsAt)).toBe(sb.wall.ms);
      expect(Date.parse(ended.endsAt)).toBeLessThan(Date.parse(run.endsAt));
      expect(Object.values(results(ended))).toEqual(Array(11).fill('pass'));
      // Ended, it no longer judges: a keyless write afterwards changes nothing of the report.
      expect((await sb.post(acct.apiKey, '/v1/card/deposit', { cardId: card.cardId, amount: 1 })).status).toBe(200);
      expect(results(await getRun(sb, acct.apiKey, run.runId))).toEqual(results(ended));
    } finally {
      await rx.close();
    }
  });

  it('with fullWindow it runs its whole window though every check is decided, until stopped', async () => {
    const rx = await withReceiver('good');
    try {
      const run = await startRun(sb, acct.apiKey, { windowSeconds: 3600, fullWindow: true });
      expect(run).toMatchObject({ fullWindow: true, endedBy: null });
      const card = await exerciseAll(rx);
      expect((await sim(sb, acct.apiKey, 'readiness/ledger', { cards: [card] })).body).toMatchObject({
        result: 'pass',
      });
      const decided = await deliveriesAnswered(run.runId);
      expect(Object.values(results(decided))).toEqual(Array(11).fill('pass'));
      expect(decided).toMatchObject({ status: 'running', endedBy: null, endsAt: run.endsAt });
      expect(await stopRun(sb, acct.apiKey, run.runId)).toMatchObject({ status: 'done', endedBy: 'stop' });
    } finally {
      await rx.close();
    }
  });
});
