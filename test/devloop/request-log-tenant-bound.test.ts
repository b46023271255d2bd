import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

// The request log keeps at most its tenant's bound in bytes (an account and its child sandboxes together, 32 MiB by
// default): past it the tenant's oldest records go, whichever of its accounts made them; another tenant's stay.

let sb: TestSandbox;
afterEach(() => sb.close());

const MIB = 1024 * 1024;

describe('request log: one storage bound per tenant', () => {
  it('keeps a tenant within its bytes across its children, oldest records first out; another tenant keeps its own', async () => {
    sb = createTestSandbox({ config: { tenant: { ...DEFAULT_CONFIG.tenant, requestLogBytes: MIB } } });
    const parent = await sb.account();
    const other = await sb.account();
    const children: string[] = [];
    for (const name of ['a', 'b']) {
      children.push((await sb.post(parent.apiKey, '/sandbox/v1/sandboxes/create', { name })).body.apiKey as string);
    }
    const pad = 'x'.repeat(60 * 1024);
    const sent: { key: string; requestId: string }[] = [];
    const keys = [parent.apiKey, ...children];
    for (let i = 0; i < 30; i++) {
      const key = keys[i % keys.length]!;
      sb.wall.ms += 1;
      const res = await sb.post(key, '/v1/card/list', { pad: `${i}${pad}` });
      sent.push({ key, requestId: res.headers['x-request-id']! });
    }
    const mine = await sb.post(other.apiKey, '/v1/card/list', { pad });
    const kept = [];
    for (const { key, requestId } of sent) {
      kept.push((await sb.post(key, '/sandbox/v1/requests/get', { requestId })).status === 200);
    }
    // 60 KiB bodies: about 16 fit in 1 MiB; the newest are kept, in one run, whichever account sent them.
    const first = kept.indexOf(true);
    expect(first).toBeGreaterThan(10);
    expect(kept.slice(first).every(Boolean)).toBe(true);
    const usage = await sb.admin('get', `/admin/v1/accounts/${parent.accountId}/usage`);
    expect(usage.body.requestLogBytes).toBeLessThanOrEqual(MIB);
    expect(usage.body.requestLogBytes).toBeGreaterThan(MIB - 2 * 66 * 1024);
    expect(usage.body).toMatchObject({ tenantId: parent.accountId, childSandboxes: 2, requestLogBytesLimit: MIB });
    const theirs = await sb.post(other.apiKey, '/sandbox/v1/requests/get', { requestId: mine.headers['x-request-id'] });
    expect(theirs.status).toBe(200);
  });
});
