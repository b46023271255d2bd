import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../../src/domain/accounts/accounts.js';
import type { CapturedRequest } from '../../src/request-log/captured-request.js';
import { BUSY_FLUSH_INTERVAL_MS, FLUSH_INTERVAL_MS, KEEP_PER_ACCOUNT } from '../../src/request-log/log.js';
import { createDeps } from '../../src/wiring.js';
import { START_MS, testConfig } from '../helpers/sandbox.js';

// When the request log writes its batches (README: what a crash may lose of it). Reads of the log write the pending
// batch first, so these tests look at the table itself: what is on disk at each moment is what a crash would keep.

function world() {
  const deps = createDeps({ config: testConfig(), wallClock: () => START_MS });
  const account = deps.db.transaction(() =>
    createAccount(deps, { depositFeeRatePpm: 20_000, depositAddress: null, balanceMicros: 0 }),
  )();
  let n = 0;
  const send = (count: number) => {
    for (let i = 0; i < count; i++) deps.requestLog.add(captured(account.id, `req_${++n}`));
  };
  const written = () =>
    (deps.db.prepare('SELECT count(*) AS n FROM request_log WHERE account_id = ?').get(account.id) as { n: number }).n;
  const newest = () =>
    (deps.db.prepare('SELECT request_id AS id FROM request_log ORDER BY seq DESC LIMIT 1').get() as { id: string }).id;
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

  it('writes a request within a second of its answer', () => {
    const w = world();
    w.send(3);
    vi.advanceTimersByTime(FLUSH_INTERVAL_MS - 1);
    expect(w.written()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(w.written()).toBe(3);
  });

  it('after more than 1,000 requests of one account in a batch, writes the next batch 4 s later, then again each second', () => {
    const w = world();
    w.send(KEEP_PER_ACCOUNT + 500);
    vi.advanceTimersByTime(FLUSH_INTERVAL_MS);
    expect(w.written()).toBe(KEEP_PER_ACCOUNT);
    expect(w.newest()).toBe(w.lastId());

    w.send(10);
    vi.advanceTimersByTime(BUSY_FLUSH_INTERVAL_MS - 1);
    expect(w.newest()).not.toBe(w.lastId());
    vi.advanceTimersByTime(1);
    expect(w.newest()).toBe(w.lastId());

    w.send(10);
    vi.advanceTimersByTime(FLUSH_INTERVAL_MS);
    expect(w.newest()).toBe(w.lastId());
    expect(w.written()).toBe(KEEP_PER_ACCOUNT);
  });
  it('writes a large batch in slices, each leaving the event loop free, and a read of the log writes the rest first', async () => {
    // The timers of the batch faked, the turns of the event loop between its slices (setImmediate) real.
    vi.useRealTimers();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const w = world();
    w.send(KEEP_PER_ACCOUNT);
    vi.advanceTimersByTime(FLUSH_INTERVAL_MS);
    expect(w.written()).toBeGreaterThan(0);
    expect(w.written()).toBeLessThan(KEEP_PER_ACCOUNT);
    w.readLog();
    expect(w.written()).toBe(KEEP_PER_ACCOUNT);
    expect(w.newest()).toBe(w.lastId());
    // The slice still scheduled finds nothing left to write.
    await new Promise((resolve) => setImmediate(resolve));
    expect(w.written()).toBe(KEEP_PER_ACCOUNT);
  });
});
