import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { readIndex } from '../../src/contracts/files.js';
import { validateRequest } from '../../src/contracts/registry.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { invalid, valid } from './schema-arbitrary.js';

// The document and the server agree in both directions (issue 13): for every request schema, bodies drawn from it
// get a success or a domain error, and bodies that break it in one place get the 400 that names the problem.

const index = readIndex();
const RUNS = Number(process.env.CONTRACT_PROPERTY_RUNS ?? 12);

/** A validation message: a field's name, then what it must be (http/request-schema.ts). */
const VALIDATION = /^[\w.[\]]+ (is required|must |needs |cannot )|^[\w.[\]]+: unknown field \(/;

const operations = Object.entries(index.operations).filter(([, op]) => op.request !== null);

let sb: TestSandbox | undefined;
afterEach(async () => sb?.close());

async function send(s: TestSandbox, key: string, accountId: string, apiKey: string, body: unknown) {
  const [method, template] = key.split(' ') as [string, string];
  const path = template.replace('{id}', accountId).replace('{binId}', 'PROP-BIN');
  if (template.startsWith('/admin/')) return s.admin(method.toLowerCase() as 'post', path, body);
  const { default: request } = await import('supertest');
  let req = request(s.server)[method.toLowerCase() as 'post'](path).set('X-API-KEY', apiKey);
  req = req.set('Content-Type', 'application/json');
  return req.send(JSON.stringify(body));
}

describe('every request schema against the server, both directions', () => {
  it.each(operations.map(([key, op]) => [key, op.request!] as const))(
    '%s',
    async (key, schemaPath) => {
      sb = createTestSandbox();
      const s = sb;
      const account = await s.account({ balance: 1000 });
      const [method, template] = key.split(' ') as [string, string];
      const schema = { $ref: index.base + schemaPath };
      const closed = /^\/(sandbox|admin)\/v1\//.test(template);
      const conforms = (body: unknown) => validateRequest(method, template, body).length === 0;
      const validBodies = valid(schema, index.base).filter(conforms);
      const breakable = invalid(schema, index.base, closed);

      await fc.assert(
        fc.asyncProperty(validBodies, async (body) => {
          const res = await send(s, key, account.accountId, account.apiKey, body);
          if (template === '/sandbox/v1/faults') await s.post(account.apiKey, '/sandbox/v1/faults/clear');
          expect(res.status, JSON.stringify(body)).toBeLessThan(500);
          if (res.status === 400 && res.body.code === 400)
            expect(res.body.message, JSON.stringify(body)).not.toMatch(VALIDATION);
        }),
        { numRuns: RUNS },
      );
      if (breakable === undefined) return;
      const invalidBodies = breakable.filter((m) => !conforms(m.body));
      await fc.assert(
        fc.asyncProperty(invalidBodies, async ({ describe: what, body }) => {
          const res = await send(s, key, account.accountId, account.apiKey, body);
          expect([res.status, res.body.code, what]).toEqual([400, 400, what]);
          expect(res.body.message).toMatch(VALIDATION);
        }),
        { numRuns: RUNS },
      );
    },
    120_000,
  );
});
