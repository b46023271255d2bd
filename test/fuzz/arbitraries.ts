import fc from 'fast-check';
import { readIndex, readSchemaFiles } from '../../src/contracts/files.js';
import type { Route, World } from './world.js';
import { ADMIN_TOKEN } from './world.js';

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const printable = (max: number) => fc.stringMatching(new RegExp(`^[\\x20-\\x7e]{0,${max}}$`));

/** Field names the API knows, so generated bodies reach past "field is required" into the deeper checks. */
const FIELDS = [
  'amount',
  'currency',
  'cardId',
  'binId',
  'alias',
  'status',
  'pageNumber',
  'pageSize',
  'network',
  'advanceSeconds',
  'mode',
  'balance',
  'available',
  'provisioning',
  'depositFeeRate',
  'requireIdempotencyKey',
  'depositAddress',
  'name',
  'url',
  'enabled',
  'transactionId',
  'title',
  'bin',
  'fee',
  'limit',
  'inventory',
  'cardNetwork',
  'type',
  'rules',
] as const;

function valueFor(world: World): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    {
      weight: 4,
      arbitrary: fc.constantFrom<unknown>(
        ...world.a.cards,
        world.b.cards[0],
        'USDT',
        'USDC',
        'TRX',
        'ACTIVE',
        'FROZEN',
        'CANCELLED',
        'VISA-EFI-454924',
        'frozen',
        'running',
        0,
        1,
        5,
        0.000001,
        1e-7,
        -1,
        1e9,
        1e10,
        2 ** 53,
        '10',
        '0.02',
        true,
        null,
        [],
        {},
      ),
    },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.integer() },
  );
}

/** A body the route accepts, so that one mutated field probes the checks behind validation. */
function validBody(path: string, world: World): Record<string, unknown> {
  const cardId = world.a.cards[0];
  const bodies: Record<string, Record<string, unknown>> = {
    '/v1/card/create': { amount: 5, currency: 'USDT' },
    '/v1/card/deposit': { cardId, amount: 1, currency: 'USDT' },
    '/v1/bill/list': { pageNumber: 1, pageSize: 20 },
    '/v1/wallet/getAddress': { currency: 'USDT', network: 'TRX' },
    '/sandbox/v1/clock': { advanceSeconds: 1 },
    '/sandbox/v1/wallet/seed': { amount: 10 },
    '/sandbox/v1/inventory': { binId: 'VISA-EFI-454924', available: 5 },
    '/admin/v1/accounts': { depositAddress: null },
    '/admin/v1/bins/:binId': { inventory: 10 },
  };
  return bodies[path] ?? (path.startsWith('/v1/card/') ? { cardId } : {});
}

function mutatedBody(route: Route, world: World): fc.Arbitrary<string> {
  return fc
    .option(fc.tuple(fc.constantFrom(...FIELDS, ...Object.keys(validBody(route.path, world))), valueFor(world)), {
      freq: 3,
    })
    .map((m) => JSON.stringify(m ? { ...validBody(route.path, world), [m[0]]: m[1] } : validBody(route.path, world)));
}

function bodyFor(route: Route, world: World): fc.Arbitrary<string | undefined> {
  const known = fc
    .dictionary(fc.constantFrom(...FIELDS), valueFor(world), { maxKeys: 5 })
    .map((o) => JSON.stringify(o));
  return fc.oneof(
    { weight: 3, arbitrary: mutatedBody(route, world) },
    { weight: 3, arbitrary: known },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

// No key id of A is generated: revoking A's own key would leave the rest of a batch at the front door.
function pathFor(route: Route, world: World): fc.Arbitrary<string> {
  const parts = route.path
    .split('/')
    .map((seg) =>
      seg.startsWith(':')
        ? fc.oneof(
            fc.constantFrom(world.a.accountId, world.b.accountId, 'key_0000000000000000', 'VISA-EFI-454924', 'nope'),
            fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/),
          )
        : fc.constant(seg),
    );
  return fc.tuple(...parts).map((segs) => segs.join('/'));
}

const query = fc
  .dictionary(printable(8), printable(12), { maxKeys: 3 })
  .map((q) => (Object.keys(q).length ? '?' + new URLSearchParams(q).toString() : ''));

function headersFor(world: World): fc.Arbitrary<Record<string, string>> {
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 4 });
  return fc
    .record({
      'content-type': maybe(
        fc.oneof(
          {
            weight: 6,
            arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON'),
          },
          { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/jsonx', 'multipart/form-data') },
          { weight: 1, arbitrary: printable(30) },
        ),
      ),
      'x-api-key': fc.option(
        fc.oneof(
          { weight: 7, arbitrary: fc.constant(world.a.apiKey) },
          { weight: 1, arbitrary: fc.constant(world.child.apiKey) },
          { weight: 1, arbitrary: fc.constantFrom(world.b.apiKey, world.revokedKey) },
          { weight: 1, arbitrary: printable(50) },
        ),
        { nil: undefined, freq: 12 },
      ),
      'idempotency-key': maybe(fc.oneof(fc.constantFrom('k1', 'k2'), printable(300))),
      authorization: maybe(
        fc.oneof(
          { weight: 4, arbitrary: fc.constant(`Bearer ${ADMIN_TOKEN}`) },
          { weight: 1, arbitrary: printable(40) },
        ),
      ),
      'x-request-id': maybe(printable(140)),
    })
    .map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined)) as Record<string, string>);
}

/** Headers of a partner that gets the envelope right (so the request reaches the business checks). */
function wellFormedHeaders(world: World): fc.Arbitrary<Record<string, string>> {
  const keys = fc.constantFrom(world.a.apiKey, world.a.apiKey, world.a.apiKey, world.child.apiKey);
  return fc
    .tuple(fc.option(fc.constantFrom('k1', 'k2', 'k3'), { nil: undefined, freq: 2 }), keys)
    .map(([key, apiKey]) => ({
      'content-type': 'application/json',
      'x-api-key': apiKey,
      authorization: `Bearer ${ADMIN_TOKEN}`,
      ...(key ? { 'idempotency-key': key } : {}),
    }));
}

/**
 * A request against one of the app's routes: half are well-formed envelopes around a valid body with at most
 * one field mutated, half arbitrary in every part; mostly the route's own method, sometimes another.
 */
export function requestFor(world: World): fc.Arbitrary<FuzzRequest> {
  return fc.tuple(fc.constantFrom(...world.routes), fc.boolean()).chain(([route, wellFormed]) =>
    fc
      .record({
        method: fc.oneof(
          { weight: 9, arbitrary: fc.constant(route.method) },
          { weight: 1, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'POST') },
        ),
        path: pathFor(route, world),
        query,
        headers: wellFormed ? wellFormedHeaders(world) : headersFor(world),
        body: wellFormed ? mutatedBody(route, world) : bodyFor(route, world),
      })
      .map(({ method, path, query: q, headers, body }) => ({
        method,
        url: `http://sandbox.test${path}${q}`,
        headers,
        body: method === 'GET' ? undefined : body,
      })),
  );
}

/** The top-level fields of each operation's request schema, by Hono route (`PATCH /admin/v1/accounts/:id`). */
function requestFields(): Map<string, string[]> {
  const index = readIndex();
  const files = new Map(readSchemaFiles().map((f) => [f.schema.$id as string, f.schema]));
  const fields = new Map<string, string[]>();
  for (const [key, op] of Object.entries(index.operations)) {
    if (op.request === null) continue;
    const schema = files.get(index.base + op.request) as { properties?: Record<string, unknown> } | undefined;
    fields.set(key.replace(/\{(\w+)\}/g, ':$1'), Object.keys(schema?.properties ?? {}));
  }
  return fields;
}

/** What a hurried partner types instead of a field: a letter dropped, doubled or swapped, a case slip, a plural. */
const misspelt = fc
  .tuple(fc.constantFrom(...FIELDS), fc.constantFrom('drop', 'double', 'swap', 'case', 'plural', 'snake'), fc.nat())
  .map(([f, how, n]) => {
    const i = n % f.length;
    if (how === 'drop') return f.slice(0, i) + f.slice(i + 1);
    if (how === 'double') return f.slice(0, i) + f[i] + f.slice(i);
    if (how === 'swap' && i + 1 < f.length) return f.slice(0, i) + f[i + 1] + f[i] + f.slice(i + 2);
    if (how === 'case') return f.slice(0, i) + f[i]!.toUpperCase() + f.slice(i + 1);
    if (how === 'snake') return f.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) + (f === f.toLowerCase() ? '_' : '');
    return `${f}s`;
  });

export interface UnknownFieldRequest extends FuzzRequest {
  /** The body's top-level fields that its schema does not have (the added one, and any a mutation added). */
  unknown: string[];
}

/**
 * A well-formed request to a simulation or operator route whose body adds one field its schema does not have (a
 * misspelt known field, or any name), to a valid body or a mutated one: docs/design.md section 12 refuses it by name.
 */
export function unknownFieldRequest(world: World): fc.Arbitrary<UnknownFieldRequest> {
  const fields = requestFields();
  const routes = world.routes.filter(
    (r) => /^\/(sandbox|admin)\/v1\//.test(r.path) && fields.has(`${r.method} ${r.path}`),
  );
  return fc
    .constantFrom(...routes)
    .chain((route) => {
      const known = fields.get(`${route.method} ${route.path}`) ?? [];
      const name = fc
        .oneof(misspelt, fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/))
        .filter((n) => !known.includes(n) && n !== '__proto__');
      const path = route.path.replace(':id', world.a.accountId).replace(':binId', 'VISA-EFI-454924');
      return fc.record({
        route: fc.constant(route),
        known: fc.constant(known),
        path: fc.constant(path),
        field: name,
        value: valueFor(world),
        body: fc.oneof(fc.constant(JSON.stringify(validBody(route.path, world))), mutatedBody(route, world)),
        headers: wellFormedHeaders(world),
      });
    })
    .map(({ route, known, path, field, value, body, headers }) => {
      const sent = { ...JSON.parse(body), [field]: value };
      return {
        method: route.method,
        url: `http://sandbox.test${path}`,
        headers,
        unknown: Object.keys(sent).filter((k) => !known.includes(k)),
        body: JSON.stringify(sent),
      };
    });
}
