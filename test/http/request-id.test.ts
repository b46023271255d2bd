import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
let acct: AccountHandle;

it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('X-Request-Id (docs/design.md section 3: every response carries it)', () => {
  it.each([
    ['a success', () => sb.post(acct.apiKey, '/v1/wallet/assetList', {}), 200],
    ['an auth failure', () => sb.post('nope', '/v1/wallet/assetList', {}), 401],
    ['a validation error', () => sb.post(acct.apiKey, '/v1/card/asset', {}), 400],
    ['an unknown route', () => sb.post(acct.apiKey, '/v1/nowhere', {}), 404],
    ['a body over 1 MiB', () => sb.post(acct.apiKey, '/v1/card/list', JSON.stringify({ p: 'x'.repeat(1 << 20) })), 413],
  ] as const)('is set on %s', async (_name, send, status) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9A-Za-z]{20}$/);
  });

  it('keeps a well-formed incoming id', async () => {
    const res = await sb.post(acct.apiKey, '/v1/wallet/assetList', {}, { 'X-Request-Id': 'trace-123' });
    expect(res.headers['x-request-id']).toBe('trace-123');
  });
});
