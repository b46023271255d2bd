import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CapturedRequest } from '../../src/request-log/captured-request.js';
import { PendingRecords } from '../../src/request-log/pending-records.js';
import type { RecordRow } from '../../src/store/request-log.js';
import { propertyRuns } from '../helpers/property-runs.js';

// An account's request-log records wait for their batch encoded in a circular buffer (src/request-log/pending-records.ts):
// what comes out must be exactly the newest records that went in, in order, whatever their sizes and however often
// the circle wrapped, and a busy account must reuse its bytes instead of growing.

const record = (over: Partial<CapturedRequest> = {}): CapturedRequest => ({
  accountId: 'acc_1',
  requestId: 'req_1',
  atMs: 1_780_272_000_123,
  method: 'POST',
  path: '/sandbox/v1/card/authorize',
  status: 200,
  latencyMs: 12.3,
  keyId: 'key_1',
  requestHeaders: 'content-type\napplication/json\nx-api-key\nsk_sandbox_x',
  requestBody: '{"merchantName":"Café 東京 🍜"}',
  responseHeaders: 'content-type\napplication/json',
  responseBody: '{"code":0,"message":"ok"}',
  fromConsole: false,
  fault: null,
  ...over,
});

const row = (requestId: string) => ({ account_id: 'acc_1', request_id: requestId }) as RecordRow;

describe('pending request-log records', () => {
  it('gives back every field as it was put, non-ASCII text, null and absent bodies included', () => {
    const pending = new PendingRecords(10, 1024 * 1024);
    const records = [
      record(),
      record({ requestId: 'req_2', keyId: null, requestBody: null, responseBody: undefined, status: 429 }),
      record({ requestId: 'req_3', requestBody: undefined, responseBody: '', latencyMs: 0, atMs: 0 }),
      record({
        requestId: 'req_4',
        fromConsole: true,
        fault: '{"by":"faults","wait":{"kind":"hold","ms":1500,"ended":"released"},"answer":"dropped"}',
      }),
    ];
    for (const r of records) expect(pending.put(r)).toBe('added');
    expect(pending.take('acc_1')).toEqual(records);
    expect(pending.size).toBe(0);
  });

  it('keeps the newest records, rows made at once among them in order, and says when it pushed one out', () => {
    const pending = new PendingRecords(3, 1024 * 1024);
    expect(pending.put(record({ requestId: 'a' }))).toBe('added');
    expect(pending.putRow(row('b'))).toBe('added');
    expect(pending.put(record({ requestId: 'c' }))).toBe('added');
    expect(pending.put(record({ requestId: 'd' }))).toBe('replaced');
    expect(pending.take('acc_1').map((p) => ('request_id' in p ? p.request_id : p.requestId))).toEqual(['b', 'c', 'd']);
  });

  it('reuses the bytes of the records it pushed out: 10,000 records of 3.6 KB in a circle of 10 stay in 64 KiB', () => {
    const pending = new PendingRecords(10, 16 * 1024 * 1024);
    const body = JSON.stringify({ pad: 'x'.repeat(3600) });
    for (let i = 0; i < 10_000; i++) pending.put(record({ requestId: `req_${i}`, responseBody: body }));
    expect(pending.bytes).toBeLessThanOrEqual(64 * 1024);
    expect(pending.take('acc_1').map((r) => ('requestId' in r ? r.requestId : ''))).toEqual(
      Array.from({ length: 10 }, (_, i) => `req_${9_990 + i}`),
    );
  });

  it('answers full, adding nothing, when a record does not fit in its bytes', () => {
    const pending = new PendingRecords(10, 4096);
    expect(pending.put(record({ responseBody: 'x'.repeat(1000) }))).toBe('added');
    expect(pending.put(record({ responseBody: 'x'.repeat(1000) }))).toBe('full');
    expect(pending.size).toBe(1);
  });

  it('holds exactly the newest `keep` records put, whatever their sizes and wherever the circle wraps', () => {
    const item = fc.oneof(
      { weight: 9, arbitrary: fc.string({ unit: 'binary', maxLength: 3000 }).map((s) => ({ body: s })) },
      { weight: 1, arbitrary: fc.constant({ row: true as const }) },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(item, { maxLength: 200 }), (keep, items) => {
        const pending = new PendingRecords(keep, 1024 * 1024);
        const model: unknown[] = [];
        items.forEach((it, i) => {
          const p = 'row' in it ? row(`row_${i}`) : record({ requestId: `req_${i}`, responseBody: it.body });
          expect('row' in it ? pending.putRow(p as RecordRow) : pending.put(p as CapturedRequest)).not.toBe('full');
          model.push(p);
        });
        expect(pending.take('acc_1')).toEqual(model.slice(-keep));
      }),
      { numRuns: propertyRuns(300) },
    );
  });
});
