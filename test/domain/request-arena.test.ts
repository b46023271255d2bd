import { describe, expect, it } from 'vitest';
import { RequestArena } from '../../src/domain/request-arena.js';
import type { CapturedRequest } from '../../src/domain/captured-request.js';

// The request log's pending records wait encoded in one buffer (src/domain/request-arena.ts): what comes out must
// be exactly what went in, whatever the text, and a record that does not fit must be refused, never cut.

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
  ...over,
});

describe('request arena', () => {
  it('gives back every field as it was put, non-ASCII text, null and absent bodies included', () => {
    const arena = new RequestArena();
    const records = [
      record(),
      record({ requestId: 'req_2', keyId: null, requestBody: null, responseBody: undefined, status: 429 }),
      record({ requestId: 'req_3', requestBody: undefined, responseBody: '', latencyMs: 0, atMs: 0 }),
    ];
    const offsets = records.map((r) => arena.put(r));
    expect(offsets.every((o) => o >= 0)).toBe(true);
    expect(offsets.map((o) => arena.get(o, 'acc_1'))).toEqual(records);
  });

  it('keeps earlier records whole when it takes another chunk', () => {
    const arena = new RequestArena();
    const big = 'é'.repeat(50_000);
    const put = Array.from({ length: 20 }, (_, i) => record({ requestId: `req_${i}`, responseBody: big + i }));
    const offsets = put.map((r) => arena.put(r));
    expect(offsets.map((o) => arena.get(o, 'acc_1'))).toEqual(put);
  });

  it('refuses a record that does not fit (-1), and takes it again once cleared', () => {
    const arena = new RequestArena(4096, 4096);
    const r = record({ responseBody: 'x'.repeat(1000) });
    expect(arena.put(r)).toBe(0);
    expect(arena.put(r)).toBe(-1);
    arena.clear();
    expect(arena.put(r)).toBe(0);
    expect(arena.get(0, 'acc_1')).toEqual(r);
  });
});
