import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../../src/domain/accounts/accounts.js';
import type { CapturedRequest } from '../../src/request-log/captured-request.js';
import { BUSY_FLUSH_INTERVAL_MS, FLUSH_INTERVAL_MS, KEEP_PER_ACCOUNT } from '../../src/request-log/log.js';
import { createDeps } from '../../src/wiring.js';
import { START_MS, testConfig } from '../helpers/sandbox.js';

// When the request log writes its batches (README: what a crash may lose of it). Reads of the log write the pending
// batch first, so these tests look at the table itself: what is on disk at each moment is what a crash would keep.

async function world() {
  const deps = createDeps({ config: testConfig(), wallClock: () => START_MS });
  const account = await deps.transactions.run((deps) =>
    createAccount(deps, { depositFeeRatePpm: 20_000, depositAddress: null, balanceMicros: 0 }),
  );
  let n = 0;
  const send = async (count: number) => {
    for (let i = 0; i < count; i++) await deps.requestLog.add(captured(account.id, `req_${++n}`));
  };
  const written = async () =>
    (await deps.store.get<{ n: number }>('SELECT count(*) AS n FROM request_log WHERE account_id = ?', [account.id]))!
      .n;
  const newest = async () =>
    (await deps.store.get<{ id: string }>('SELECT request_id AS id FROM request_log ORDER BY seq DESC LIMIT 1'))!.id;
  // What every read of the log (API, console, readiness) does first.
  const readLog = () => deps.requestLog.flush();
  return { send, written, newest, readLog, lastId: () => `req_${n}` };
}

const captured = (accountId: string, requestId: string): CapturedRequest => ({
  accountId,
  requestId,
  atMs: START_MS,
  method: 'POST',
  path: '/v1/wallet/assetList',
  status: 200,
  latencyMs: 1,
  keyId: null,
  requestHeaders: 'content-type\napplication/json',
  requestBody: '{}',
  responseHeaders: 'content-type\napplication/json',
  responseBody: '{"code":0,"message":"ok"}',
  fromConsole: false,
  fault: null,
});

describe('request log batches', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes a request within a second of its answer', async () => {
    const w = await world();
    await w.send(3);
    await vi.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS - 1);
    expect(await w.written()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(await w.written()).toBe(3);
  });

  it('after more than 1,000 requests of one account in a batch, writes the next batch 4 s later, then again each second', async () => {
    const w = await world();
    await w.send(KEEP_PER_ACCOUNT + 500);
    await vi.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS);
    expect(await w.written()).toBe(KEEP_PER_ACCOUNT);
    expect(await w.newest()).toBe(w.lastId());

    await w.send(10);
    await vi.advanceTimersByTimeAsync(BUSY_FLUSH_INTERVAL_MS - 1);
    expect(await w.newest()).not.toBe(w.lastId());
    await vi.advanceTimersByTimeAsync(1);
    expect(await w.newest()).toBe(w.lastId());

    await w.send(10);
    await vi.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS);
    expect(await w.newest()).toBe(w.lastId());
    expect(await w.written()).toBe(KEEP_PER_ACCOUNT);
  });
  it('writes a large batch in slices, each leaving the event loop free, and a read of the log writes the rest first', async () => {
    // The timers of the batch faked, the turns of the event loop between its slices (setImmediate) real.
    vi.useRealTimers();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const w = await world();
    await w.send(KEEP_PER_ACCOUNT);
    await vi.advanceTimersByTimeAsync(FLUSH_INTERVAL_MS);
    expect(await w.written()).toBeGreaterThan(0);
    expect(await w.written()).toBeLessThan(KEEP_PER_ACCOUNT);
    await w.readLog();
    expect(await w.written()).toBe(KEEP_PER_ACCOUNT);
    expect(await w.newest()).toBe(w.lastId());
    // The slice still scheduled finds nothing left to write.
    await new Promise((resolve) => setImmediate(resolve));
    expect(await w.written()).toBe(KEEP_PER_ACCOUNT);
  });
});
