import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { readIndex } from '../../src/contracts/files.js';
import { validateRequest } from '../../src/contracts/registry.js';
import { createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';
import { invalid, valid } from './schema-arbitrary.js';
import { snapshotDocument } from './snapshot-arbitrary.js';
import { propertyRuns, propertyTimeoutMs } from '../helpers/property-runs.js';

// The document and the server agree in both directions: for every request schema, bodies drawn from it
// get a success or a domain error, and bodies that break it in one place get the 400 that names the problem.

const index = readIndex();
const RUNS = propertyRuns(Number(process.env.CONTRACT_PROPERTY_RUNS ?? 12));

/** A validation message: a field's name, then what it must be (http/request-schema.ts). */
const VALIDATION = /^[\w.[\]]+ (is required|must |needs |cannot )|^[\w.[\]]+: unknown field \(/;

const operations = Object.entries(index.operations).filter(([, op]) => op.request !== null);
/** Bodies with no field that take any field (the partner API is open to fields it does not know). */
const UNBREAKABLE = ['POST /v1/wallet/assetList', 'POST /v1/card/binList', 'POST /v1/webhook/rotate-secret'];

/** Bodies whose parts must hold together beyond their schema, drawn from an arbitrary of their own. */
const DRAWN: Record<string, () => fc.Arbitrary<Record<string, unknown>>> = {
  'POST /sandbox/v1/snapshot/import': snapshotDocument,
};
/** Operations that make a child sandbox: it is deleted after each run, so no run meets the bound of 100 children. */
const MAKES_A_CHILD = ['/sandbox/v1/sandboxes/create', '/sandbox/v1/snapshot/import'];

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

/** What each request schema allows and how it can be broken in one place (undefined: nothing to break). */
const schemas = operations.map(([key, op]) => {
  const [method, template] = key.split(' ') as [string, string];
  const schema = { $ref: index.base + op.request! };
  const closed = /^\/(sandbox|admin)\/v1\//.test(template);
  const conforms = (body: unknown) => validateRequest(method, template, body).length === 0;
  const drawn = DRAWN[key]?.();
  const breakable = invalid(schema, index.base, closed, drawn);
  return { key, template, drawn: drawn ?? valid(schema, index.base), conforms, breakable };
});

async function withAccount<T>(run: (s: TestSandbox, account: AccountHandle) => Promise<T>): Promise<T> {
  sb = createTestSandbox();
  return run(sb, await sb.account({ balance: 1000 }));
}

describe('every request schema against the server, both directions', () => {
  it.each(schemas)(
    '$key: bodies drawn from its schema get a success or a domain error',
    async ({ key, template, drawn, conforms }) =>
      withAccount(async (s, account) => {
        await fc.assert(
          fc.asyncProperty(drawn.filter(conforms), async (body) => {
            const res = await send(s, key, account.accountId, account.apiKey, body);
            if (template === '/sandbox/v1/faults') await s.post(account.apiKey, '/sandbox/v1/faults/clear');
            if (MAKES_A_CHILD.includes(template) && res.status === 200) {
              await s.post(account.apiKey, '/sandbox/v1/sandboxes/delete', { accountId: res.body.accountId });
            }
            expect(res.status, JSON.stringify(body)).toBeLessThan(500);
            if (res.status === 400 && res.body.code === 400)
              expect(res.body.message, JSON.stringify(body)).not.toMatch(VALIDATION);
          }),
          { numRuns: RUNS },
        );
      }),
    propertyTimeoutMs(120_000),
  );

  it.each(schemas.filter((o) => o.breakable))(
    '$key: a body broken in one place is the 400 that names the problem',
    async ({ key, conforms, breakable }) =>
      withAccount(async (s, account) => {
        await fc.assert(
          fc.asyncProperty(
            breakable!.filter((m) => !conforms(m.body)),
            async ({ describe: what, body }) => {
              const res = await send(s, key, account.accountId, account.apiKey, body);
              expect([res.status, res.body.code, what]).toEqual([400, 400, what]);
              expect(res.body.message).toMatch(VALIDATION);
            },
          ),
          { numRuns: RUNS },
        );
      }),
    propertyTimeoutMs(120_000),
  );

  it('only operations whose body has no field, and takes any field, have nothing to break', () => {
    // Every other schema has a required field, a typed field, a bound or a closed object to break.
    expect(schemas.filter((o) => !o.breakable).map((o) => o.key)).toEqual(UNBREAKABLE);
  });
});
