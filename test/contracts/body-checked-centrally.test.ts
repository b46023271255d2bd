import { describe, expect } from 'vitest';
import { readIndex } from '../../src/contracts/files.js';
import { sandboxTest as it } from '../helpers/fixtures.js';
import { ADMIN_TOKEN } from '../helpers/sandbox.js';

// Every operation with a request body has it checked by its route before its handler runs (Content-Type, JSON,
// schema): no handler can forget to read it. The list comes from contracts/index.json, so a new operation is covered
// the day it is added.

const WITH_BODY = Object.entries(readIndex().operations)
  .filter(([, op]) => op.request !== null)
  .map(([key, op]) => ({ key, security: op.security }));

describe('the body of every POST, PUT and PATCH is checked centrally', () => {
  it('the contract has bodies to check under every API', () => {
    const paths = WITH_BODY.map((o) => o.key);
    for (const prefix of ['POST /v1/', 'PUT /v1/', 'POST /sandbox/v1/', 'POST /admin/v1/', 'PATCH /admin/v1/']) {
      expect(paths.some((p) => p.startsWith(prefix))).toBe(true);
    }
  });

  it.for(WITH_BODY.map((o) => [o.key, o] as const))(
    '%s: Content-Type text/plain with a malformed body is a 400 that names the Content-Type',
    async ([key, { security }], { sb, acct }) => {
      const [method, template] = key.split(' ') as [string, string];
      const path = template.replace('{id}', acct.accountId).replace('{binId}', 'default');
      const call = sb.request[method.toLowerCase() as 'post' | 'put' | 'patch'](path)
        .set('Content-Type', 'text/plain')
        .set(
          security === 'adminToken' ? 'Authorization' : 'X-API-KEY',
          security === 'adminToken' ? `Bearer ${ADMIN_TOKEN}` : acct.apiKey,
        )
        .send('{not json');
      const res = await call;
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 400, message: expect.stringMatching(/Content-Type must be application\/json/) });
    },
  );

  it('rotate-secret with a malformed text/plain body is refused and the secret stays', async ({ sb, acct }) => {
    const put = await sb.request
      .put('/v1/webhook')
      .set('X-API-KEY', acct.apiKey)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ url: 'https://example.com/hook' }));
    expect(put.status).toBe(200);
    const before = (await sb.request.get('/v1/webhook').set('X-API-KEY', acct.apiKey)).body as { secretPrefix: string };
    const refused = await sb.request
      .post('/v1/webhook/rotate-secret')
      .set('X-API-KEY', acct.apiKey)
      .set('Content-Type', 'text/plain')
      .send('{not json');
    expect(refused.status).toBe(400);
    const after = (await sb.request.get('/v1/webhook').set('X-API-KEY', acct.apiKey)).body as { secretPrefix: string };
    expect(after.secretPrefix).toBe(before.secretPrefix);
    // With no body at all, the operation whose body may be left out still runs.
    const rotated = await sb.request.post('/v1/webhook/rotate-secret').set('X-API-KEY', acct.apiKey);
    expect(rotated.status).toBe(200);
  });
});
