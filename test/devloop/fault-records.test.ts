import { describe, expect } from 'vitest';
import { createApp } from '../../src/app.js';
import { holdNext, newCard, sim, walletAvailable } from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';

// A request whose answer an injected fault dropped, delayed or held says so in its request-log record (the summary
// of sandbox/v1/requests and the full record of requests/get; logs tail and the console print the same): a dropped
// answer is no plain 200. The oracle is what the test made the fault do, and what the client saw.

let sb: TestSandbox;
let acct: AccountHandle;
let key: string;
it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct, key] = [s, a, a.apiKey]));

const faults = (rules: unknown[]) => sim(sb, key, 'faults', { rules });

/** The newest record of a path: its summary and its full record. */
async function newestRecord(path: string) {
  const list = await sim(sb, key, 'requests', { path, limit: 1 });
  expect(list.status).toBe(200);
  const [summary] = list.body.requests;
  const full = await sim(sb, key, 'requests/get', { requestId: summary.requestId });
  expect(full.status).toBe(200);
  expect(full.body.fault).toEqual(summary.fault);
  return { summary, full: full.body };
}

describe('a faulted request says so in its request-log record', () => {
  it('a dropped answer: status 200 as the server made it, the answer dropped, the operation run and committed', async () => {
    const cardId = await newCard(sb, key, 10);
    await faults([{ path: '/v1/card/deposit', dropResponse: true }]);
    await expect(sb.socket.post(key, '/v1/card/deposit', { cardId, amount: 5 })).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    );
    expect(await walletAvailable(sb, key)).toBe('985');
    const { summary, full } = await newestRecord('/v1/card/deposit');
    expect(summary.status).toBe(200);
    expect(summary.fault).toEqual({
      by: 'faults',
      wait: null,
      answer: 'dropped',
      text: expect.stringMatching(/answer was dropped: the operation ran and committed, and the client got no answer/),
    });
    expect(full.response.body).toEqual({ code: 0, message: 'ok' });
  });

  it('a request no fault touched has no fault', async () => {
    expect((await sb.post(key, '/v1/card/list', {})).status).toBe(200);
    expect((await newestRecord('/v1/card/list')).summary.fault).toBeNull();
  });

  it('a latency: delayed by the wall milliseconds it waited, its answer sent', async () => {
    await sim(sb, key, 'clock', { mode: 'frozen' });
    await faults([{ path: '/v1/card/create', latencyMs: 50 }]);
    const answered = sb.post(key, '/v1/card/create', { amount: 10, currency: 'USDT' }).then((r) => r);
    await waitFor('the request held', () => sb.deps.heldRequests.heldCount(acct.accountId) === 1);
    sb.wall.ms += 50;
    expect((await answered).status).toBe(200);
    const { summary } = await newestRecord('/v1/card/create');
    expect(summary.fault).toEqual({
      by: 'faults',
      wait: { kind: 'latency', ms: 50, ended: 'elapsed' },
      answer: 'sent',
      text: 'Delayed 50 ms by a latency (a fault of sandbox/v1/faults)',
    });
  });

  it('a hold: held until released, for as long as it was held, then its answer dropped when the rule says so', async () => {
    const cardId = await newCard(sb, key, 10);
    await faults([{ path: '/v1/card/deposit', hold: true, dropResponse: true }]);
    const lost = expect(
      sb.socket.post(key, '/v1/card/deposit', { cardId, amount: 5 }, { 'Idempotency-Key': 'held-1' }),
    ).rejects.toThrow(/socket hang up|ECONNRESET/);
    await waitFor('the request held', () => sb.deps.heldRequests.heldCount(acct.accountId) === 1);
    sb.wall.ms += 12_345;
    expect((await sim(sb, key, 'faults/release')).body.released).toBe(1);
    await lost;
    const { summary } = await newestRecord('/v1/card/deposit');
    expect(summary).toMatchObject({ status: 200, idempotencyKey: 'held-1' });
    expect(summary.fault).toMatchObject({ wait: { kind: 'hold', ms: 12_345, ended: 'released' }, answer: 'dropped' });
    expect(summary.fault.text).toMatch(/^Held 12\.3 s until released .*, then its answer was dropped/);
  });

  it('a held request whose client went away: the operation never ran, and the record says why', async () => {
    const hold = await holdNext(sb, acct, '/v1/card/create');
    const client = new AbortController();
    const first = createApp(sb.deps).request('/v1/card/create', {
      method: 'POST',
      headers: { 'X-API-KEY': key, 'Content-Type': 'application/json', 'Idempotency-Key': 'gone-2' },
      body: JSON.stringify({ amount: 10, currency: 'USDT' }),
      signal: client.signal,
    });
    await hold.held();
    client.abort();
    expect((await first).status).toBe(499);
    expect(await walletAvailable(sb, key)).toBe('1000');
    const { summary } = await newestRecord('/v1/card/create');
    expect(summary.fault).toMatchObject({ wait: { kind: 'hold', ended: 'gone' }, answer: 'sent' });
    expect(summary.fault.text).toMatch(/the client went away first, so the operation never ran/);
  });

  it('an injected answer: the fault answered, the operation never ran', async () => {
    await faults([{ path: '/v1/card/create', respond: { httpStatus: 503, code: 9999 } }]);
    expect((await sb.post(key, '/v1/card/create', { amount: 10, currency: 'USDT' })).status).toBe(503);
    const { summary } = await newestRecord('/v1/card/create');
    expect(summary).toMatchObject({ status: 503, code: 9999 });
    expect(summary.fault).toMatchObject({ by: 'faults', wait: null, answer: 'injected' });
    expect(summary.fault.text).toMatch(/^Answered by the fault itself: the operation never ran/);
  });

  it("a readiness run's injected 429 and dropped answer are told as the run's", async () => {
    expect((await sim(sb, key, 'readiness/run', {})).status).toBe(200);
    expect((await sb.post(key, '/v1/card/list', {})).status).toBe(429);
    expect((await newestRecord('/v1/card/list')).summary.fault).toMatchObject({
      by: 'readiness',
      answer: 'injected',
      text: expect.stringMatching(/\(the readiness run\)$/),
    });
    const create = sb.socket.post(
      key,
      '/v1/card/create',
      { amount: 10, currency: 'USDT' },
      { 'Idempotency-Key': 'r1' },
    );
    await expect(create).rejects.toThrow(/socket hang up|ECONNRESET/);
    expect((await newestRecord('/v1/card/create')).summary.fault).toMatchObject({ by: 'readiness', answer: 'dropped' });
  });
});
