import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../scripts/build-openapi.mjs';
import { contractsDir, readIndex } from '../../src/contracts/files.js';
import { validateEvent, validateRequest } from '../../src/contracts/registry.js';
import { CARD_STATUSES } from '../../src/domain/cards/cards.js';
import { createTestSandbox } from '../helpers/sandbox.js';

// The document says exactly what the server does: enums, limits, required fields, headers, bodies.

type Doc = Record<string, any>;
const doc = buildOpenApi(contractsDir()) as Doc;
const schemas = doc.components.schemas as Doc;

/** Follows `#/components/...` references to the schema they name. */
function deref(node: Doc): Doc {
  let n = node;
  while (n && typeof n.$ref === 'string') {
    n = n.$ref
      .slice(2)
      .split('/')
      .reduce((acc: Doc, part: string) => acc[part], doc);
  }
  return n;
}

const requestSchema = (op: string) =>
  readIndex()
    .operations[op]!.request!.replace(/\.json$/, '')
    .split('/')
    .join('.');
const prop = (component: string, ...path: string[]) =>
  deref(path.reduce((n: Doc, p) => deref(n).properties[p], schemas[component] as Doc));

/** Every schema node reachable from `node`, references followed once. */
function reachable(node: unknown, seen = new Set<unknown>(), out: Doc[] = []): Doc[] {
  if (Array.isArray(node)) node.forEach((n) => reachable(n, seen, out));
  else if (node && typeof node === 'object' && !seen.has(node)) {
    seen.add(node);
    out.push(node as Doc);
    const n = node as Doc;
    if (typeof n.$ref === 'string') reachable(deref(n), seen, out);
    for (const [k, v] of Object.entries(n)) if (k !== 'examples' && k !== 'enum') reachable(v, seen, out);
  }
  return out;
}

describe('card status', () => {
  it('is one enum, ACTIVE FROZEN CANCELLING CANCELLED, the same as the server enforces', () => {
    expect(schemas['common.card-status'].enum).toEqual([...CARD_STATUSES]);
  });

  it('types the card/list filter, card/list and card/detail answers and the card.created event', () => {
    const statusEnum = ['ACTIVE', 'FROZEN', 'CANCELLING', 'CANCELLED'];
    expect(prop('api.card.list.request', 'status').enum).toEqual(statusEnum);
    expect(deref(deref(prop('api.card.list.response', 'cardList')).items).properties.cardStatus).toEqual({
      $ref: '#/components/schemas/common.card-status',
    });
    expect(prop('api.card.detail.response', 'cardStatus').enum).toEqual(statusEnum);
    expect(prop('events.card.created.data', 'status').enum).toEqual(statusEnum);
  });
});

describe('events', () => {
  it('are a union discriminated by type, each type with its own typed data and no untyped envelope', () => {
    const envelope = schemas['events.envelope'];
    const types = Object.keys(readIndex().events.types);
    expect(envelope.oneOf).toHaveLength(types.length);
    expect(Object.keys(envelope.discriminator.mapping).sort()).toEqual([...types].sort());
    expect(envelope.discriminator.propertyName).toBe('type');
    for (const type of types) {
      const event = schemas[`events.${type}`];
      expect(event.allOf, type).toBeUndefined();
      expect(event.properties.type, type).toEqual({ const: type });
      expect(event.properties.data, type).toEqual({ $ref: `#/components/schemas/events.${type}.data` });
      expect(event.required, type).toEqual(['id', 'type', 'created', 'data']);
    }
  });

  it('refuses an event whose data belongs to another type', () => {
    const frozen = { id: 'evt_1', type: 'card.frozen', created: 1, data: { cardId: 'c' } };
    expect(validateEvent(frozen)).toEqual([]);
    expect(validateEvent({ ...frozen, type: 'card.created' }).length).toBeGreaterThan(0);
  });

  it('/sandbox/v1/events lists each event with data typed by its type', () => {
    const items = deref(prop('sandbox.events.response', 'events')).items;
    expect(items.oneOf).toHaveLength(7);
    for (const item of items.oneOf)
      expect(item.properties.data.$ref).toMatch(/^#\/components\/schemas\/events\..+\.data$/);
  });

  it('every webhook operation has an operationId', () => {
    const ids = Object.values(doc.webhooks).map((w: any) => w.post.operationId);
    expect(ids).toHaveLength(7);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(7);
  });
});

describe('limits the server enforces are in the document', () => {
  it.each([
    ['POST /v1/card/create', 'amount', { maximum: 1_000_000_000, multipleOf: 0.000001, exclusiveMinimum: 0 }],
    ['POST /v1/card/deposit', 'amount', { maximum: 1_000_000_000, multipleOf: 0.000001 }],
    ['POST /sandbox/v1/wallet/seed', 'amount', { maximum: 1_000_000_000, multipleOf: 0.000001 }],
    ['POST /sandbox/v1/chain/transfer', 'amount', { maximum: 1_000_000_000, multipleOf: 0.000001 }],
    ['POST /sandbox/v1/reset', 'balance', { exclusiveMinimum: 0, maximum: 1_000_000_000, multipleOf: 0.000001 }],
    ['POST /sandbox/v1/card/authorize', 'amount', { maximum: 1_000_000_000, multipleOf: 0.01, minimum: 0 }],
    ['POST /sandbox/v1/transaction/clear', 'amount', { maximum: 1_000_000_000, multipleOf: 0.01 }],
    ['POST /sandbox/v1/transaction/refund', 'amount', { maximum: 1_000_000_000, multipleOf: 0.01 }],
    ['POST /sandbox/v1/card/3ds', 'amount', { maximum: 1_000_000_000, multipleOf: 0.01 }],
    ['POST /v1/bill/list', 'pageSize', { maximum: 100 }],
    ['POST /sandbox/v1/3ds/verify', 'otp', { maxLength: 16 }],
    ['POST /sandbox/v1/events', 'limit', { maximum: 1000 }],
    ['POST /sandbox/v1/webhook/deliveries', 'limit', { maximum: 1000 }],
  ])('%s %s', (op, field, constraint) => {
    expect(prop(requestSchema(op), field)).toMatchObject(constraint);
  });

  it('faults: at most 50 rules, count at most 1,000,000', () => {
    const rules = prop('sandbox.faults.request', 'rules');
    expect(rules.maxItems).toBe(50);
    expect(deref(rules.items).properties.count).toMatchObject({ minimum: 1, maximum: 1_000_000 });
  });

  it('Idempotency-Key: 1-255 printable ASCII characters', () => {
    const p = doc.components.parameters.IdempotencyKey;
    expect(p.schema).toMatchObject({ minLength: 1, maxLength: 255 });
    const re = new RegExp(p.schema.pattern);
    expect(re.test('a-key 1')).toBe(true);
    expect(re.test('   ')).toBe(false);
    expect(re.test('clé')).toBe(false);
  });

  it('amounts: 6 decimal places pass where 6 are allowed, a 7th or a 3rd (card amounts) is refused', () => {
    expect(validateRequest('POST', '/sandbox/v1/wallet/seed', { amount: 10.000001 })).toEqual([]);
    expect(validateRequest('POST', '/sandbox/v1/wallet/seed', { amount: 10.0000001 })).not.toEqual([]);
    expect(validateRequest('POST', '/sandbox/v1/transaction/clear', { transactionId: 't', amount: 10.07 })).toEqual([]);
    expect(
      validateRequest('POST', '/sandbox/v1/transaction/clear', { transactionId: 't', amount: 10.071 }),
    ).not.toEqual([]);
    expect(validateRequest('POST', '/sandbox/v1/reset', { balance: 0 })).not.toEqual([]);
  });
});

describe('required fields', () => {
  it('card/sensitiveInfo always answers cardNo, cvv and expiryDate', () => {
    expect(schemas['api.card.sensitiveInfo.response'].required).toEqual(['cardNo', 'cvv', 'expiryDate']);
  });

  it('card/detail answers every field it declares (code and message aside)', () => {
    const s = schemas['api.card.detail.response'];
    const declared = Object.keys(s.properties).filter((k) => k !== 'code' && k !== 'message');
    expect([...s.required].sort()).toEqual(declared.sort());
  });
});

describe('bodies and headers as the server has them', () => {
  const operations = Object.entries(doc.paths as Doc).flatMap(([path, item]) =>
    Object.entries(item as Doc).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op: op as Doc })),
  );

  it('webhook/rotate-secret and admin keys take an optional {} body', () => {
    for (const op of ['POST /v1/webhook/rotate-secret', 'POST /admin/v1/accounts/{id}/keys']) {
      const o = operations.find((x) => x.key === op)!.op;
      expect(o.requestBody.required, op).toBe(false);
      expect(validateRequest(op.split(' ')[0]!, op.split(' ')[1]!, {}), op).toEqual([]);
      expect(validateRequest(op.split(' ')[0]!, op.split(' ')[1]!, undefined), op).toEqual([]);
    }
  });

  it('every response declares X-Request-Id; every 429 declares Retry-After', () => {
    for (const { key, op } of operations) {
      for (const [status, r] of Object.entries(op.responses as Doc)) {
        expect(r.headers?.['X-Request-Id'], `${key} ${status}`).toEqual({ $ref: '#/components/headers/X-Request-Id' });
        if (status === '429') expect(r.headers['Retry-After'], key).toBeDefined();
      }
    }
    expect(doc.components.headers['X-Request-Id'].required).toBe(true);
  });

  it('every 4xx declares the optional Sandbox-Hint, and a hint the sandbox sends fits its schema', async () => {
    for (const { key, op } of operations) {
      for (const [status, r] of Object.entries(op.responses as Doc)) {
        if (status.startsWith('4') && r.headers) expect(r.headers['Sandbox-Hint'], `${key} ${status}`).toBeDefined();
      }
    }
    const hint = doc.components.headers['Sandbox-Hint'];
    expect(hint.required).toBeUndefined();
    const sb = createTestSandbox();
    const { apiKey } = await sb.account({});
    const res = await sb.post(apiKey, '/v1/card/lst', {});
    await sb.close();
    expect(res.status).toBe(404);
    const text = res.headers['sandbox-hint'] as string;
    expect(text).toContain('/v1/card/list');
    expect(text).toMatch(new RegExp(hint.schema.pattern));
    expect(text.length).toBeLessThanOrEqual(hint.schema.maxLength);
  });

  it('every response of a keyed operation, 400 included, declares the Idempotency-Key echo', () => {
    const keyed = operations.filter((o) =>
      (o.op.parameters ?? []).some((p: Doc) => p.$ref?.endsWith('IdempotencyKey')),
    );
    expect(keyed.map((k) => k.key).sort()).toEqual(
      ['create', 'deposit', 'freeze', 'unfreeze', 'cancel'].map((e) => `POST /v1/card/${e}`).sort(),
    );
    for (const { key, op } of keyed) {
      for (const [status, r] of Object.entries(op.responses as Doc))
        expect(r.headers['Idempotency-Key'], `${key} ${status}`).toBeDefined();
    }
  });

  it('every operation except /healthz declares a 4xx answer', () => {
    const without = operations.filter((o) => !Object.keys(o.op.responses).some((s) => s.startsWith('4')));
    expect(without.map((o) => o.key)).toEqual(['GET /healthz']);
  });

  it('no request schema uses const (importers such as Postman refuse it)', () => {
    for (const { key, op } of operations) {
      const body = op.requestBody?.content['application/json'].schema;
      if (!body) continue;
      expect(
        reachable(body).filter((n) => 'const' in n),
        key,
      ).toEqual([]);
    }
  });

  it('every path parameter has an example (Dredd builds its requests from them)', () => {
    const params = operations.flatMap((o) => (o.op.parameters ?? []).filter((p: Doc) => p.in === 'path'));
    expect(params.length).toBeGreaterThan(3);
    for (const p of params) expect(new RegExp(p.schema.pattern).test(p.example), p.name).toBe(true);
  });

  it('declares no jsonSchemaDialect other than the OpenAPI 3.1 default (Swagger UI warns about any other)', () => {
    expect(doc.jsonSchemaDialect ?? 'https://spec.openapis.org/oas/3.1/dialect/base').toBe(
      'https://spec.openapis.org/oas/3.1/dialect/base',
    );
  });
});
