#!/usr/bin/env node
// Assembles contracts/openapi.json (OpenAPI 3.1) from the JSON Schemas and contracts/index.json, so the reference
// page and the validators read the same files. `npm run build:openapi` rewrites it; a test checks it is current.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const DEFAULT_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'contracts');
// The scenario file format is published beside the contracts for editors; it is not part of the API.
const NOT_SCHEMAS = new Set(['index.json', 'openapi.json', 'scenario.schema.json']);

const TAGS = [
  { name: 'Wallet', description: 'The USDT balance and the deposit address.' },
  { name: 'Cards', description: 'Issue, fund, read, freeze, unfreeze and cancel cards.' },
  { name: 'Transactions', description: 'Card transactions, newest first, paginated.' },
  { name: 'Webhooks', description: 'Where signed events are pushed.' },
  { name: 'Simulation', description: 'Sandbox only (/sandbox/v1): drive the world a production account lives in.' },
  { name: 'Operator', description: 'Sandbox only (/admin/v1): accounts, keys and BINs, behind the operator token.' },
];

const SIGNATURE_HEADERS = {
  'Service-Signature': 't=<unix_seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" keyed with the signing secret>',
  'Service-Event-Id': 'the event id',
  'Service-Event-Type': 'the event type',
};

/** contracts/api/card/create.request.json -> api.card.create.request */
const componentName = (path) =>
  path
    .replace(/\.json$/, '')
    .split('/')
    .join('.');

function readSchemas(dir) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.json') && !(d === dir && NOT_SCHEMAS.has(entry.name))) {
        out.push({ path: relative(dir, full).split(sep).join('/'), schema: JSON.parse(readFileSync(full, 'utf8')) });
      }
    }
  };
  walk(dir);
  return out;
}

/** Relative file references become component references; `$schema` and `$id` belong to the files, not the document. */
function rewrite(node, filePath) {
  if (Array.isArray(node)) return node.map((n) => rewrite(n, filePath));
  if (typeof node !== 'object' || node === null) return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema' || k === '$id') continue;
    if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) {
      const [file, fragment] = v.split('#');
      const target = posix.normalize(posix.join(posix.dirname(filePath), file));
      out.$ref = `#/components/schemas/${componentName(target)}${fragment ? fragment : ''}`;
    } else out[k] = k === 'const' || k === 'enum' || k === 'examples' ? v : rewrite(v, filePath);
  }
  return out;
}

const schemaRef = (path) => ({ $ref: `#/components/schemas/${componentName(path)}` });
const json = (path) => ({ 'application/json': { schema: schemaRef(path) } });

function describeStatus(status) {
  return (
    {
      200: 'Success',
      201: 'Created',
      400: 'Business or validation error',
      401: 'Missing, unknown or revoked credentials',
      403: 'Missing X-API-KEY, when the server answers it with 403 and an empty body',
      404: 'Not found',
      409: 'Idempotency conflict: 4211 (same key, different body) or 4212 (first request still in flight)',
      413: 'Request body over 1 MiB',
      429: 'Rate limited (hosted mode); see Retry-After',
      500: 'Unexpected server error (9999); retry later',
      default: 'Any other error, with the same error body',
    }[status] ?? `HTTP ${status}`
  );
}

/** Examples for path parameters (contract-testing tools such as Dredd need one to build a request). */
const PATH_PARAMETERS = {
  id: {
    description: 'Account id',
    schema: { type: 'string', pattern: '^acct_[A-Za-z0-9]+$' },
    example: 'acct_0123456789abcdef',
  },
  keyId: {
    description: 'API key id',
    schema: { type: 'string', pattern: '^key_[A-Za-z0-9]+$' },
    example: 'key_0123456789abcdef',
  },
  binId: {
    description: 'BIN id: 1-64 letters, digits, dots, dashes or underscores',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
    example: 'VISA-EFI-454924',
  },
};

/** Headers the server sends or reads, declared once under components and referenced by every operation. */
const HEADERS = {
  'X-Request-Id': {
    description: 'The id of this request (the one sent, when it was 1-128 of A-Z a-z 0-9 . _ -), also in the logs.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
  },
  'Retry-After': {
    description: 'Seconds to wait before the next request',
    required: true,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  'Idempotency-Key': {
    description:
      'The Idempotency-Key of the request, echoed on every answer to a keyed request when it was well-formed',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
  },
  'Idempotent-Replayed': {
    description: '`true` on a replay of the stored response',
    schema: { type: 'string', enum: ['true'] },
  },
  'Sandbox-Hint': {
    description:
      "The sandbox's own words beside the spec's `{code, message}`: what it knows of the failure (the key header missing, not wrong; what is pending on the card and when it settles on the account clock; which fields a 4211 retry changed; the nearest operation to an unknown path). Never a secret; one line of printable ASCII, at most 1,000 characters; absent when there is nothing to add. The production service sends no such header.",
    schema: { type: 'string', maxLength: 1000, pattern: '^[\\x20-\\x7E]*$' },
  },
};

const PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Any unique string (a UUID is recommended): 1-255 printable ASCII characters, not only spaces; scoped to the account, kept 24 hours.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]*[\\x21-\\x7E][\\x20-\\x7E]*$' },
  },
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description:
      'Your own id for this request (kept and echoed when it is 1-128 of A-Z a-z 0-9 . _ -; otherwise one is made)',
    schema: { type: 'string', maxLength: 1024 },
  },
};

const headerRef = (name) => ({ $ref: `#/components/headers/${name}` });

function responseHeaders(op, status) {
  const headers = { 'X-Request-Id': headerRef('X-Request-Id') };
  if (status === '429') headers['Retry-After'] = headerRef('Retry-After');
  if (status.startsWith('4')) headers['Sandbox-Hint'] = headerRef('Sandbox-Hint');
  if (op.idempotent) headers['Idempotency-Key'] = headerRef('Idempotency-Key');
  if (op.idempotent && status === '200') headers['Idempotent-Replayed'] = headerRef('Idempotent-Replayed');
  return headers;
}

/** `POST /v1/card/create` -> postV1CardCreate */
const camel = (words) =>
  words
    .filter(Boolean)
    .map((s, i) => (i === 0 ? s : s[0].toUpperCase() + s.slice(1)))
    .join('');

function operation(key, op) {
  const [method, path] = key.split(' ');
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => {
    const known = PATH_PARAMETERS[m[1]] ?? { schema: { type: 'string' }, example: 'x' };
    return { name: m[1], in: 'path', required: true, ...known };
  });
  if (op.idempotent) params.push({ $ref: '#/components/parameters/IdempotencyKey' });
  params.push({ $ref: '#/components/parameters/RequestId' });
  const responses = {};
  for (const [status, schema] of Object.entries(op.responses)) {
    const r = { description: describeStatus(status), headers: responseHeaders(op, status) };
    if (schema !== null) r.content = json(schema);
    responses[status] = r;
  }
  const security = op.security === 'none' ? [] : [{ [op.security]: [] }];
  const operationId = camel([method.toLowerCase(), ...path.replace(/\{(\w+)\}/g, 'By-$1').split(/[/.-]/)]);
  const requestBody = op.request
    ? { requestBody: { required: op.requestRequired !== false, content: json(op.request) } }
    : {};
  return {
    method: method.toLowerCase(),
    path,
    body: {
      tags: [op.tag],
      summary: op.summary,
      operationId,
      security,
      parameters: params,
      ...requestBody,
      responses,
    },
  };
}

/** The OpenAPI document for the contracts in `dir`. */
export function buildOpenApi(dir = DEFAULT_DIR) {
  const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
  const schemas = {};
  for (const f of readSchemas(dir)) schemas[componentName(f.path)] = rewrite(f.schema, f.path);
  const paths = {};
  for (const [key, op] of Object.entries(index.operations)) {
    const { method, path, body } = operation(key, op);
    (paths[path] ??= {})[method] = body;
  }
  const webhooks = {};
  for (const [type, schema] of Object.entries(index.events.types)) {
    webhooks[type] = {
      post: {
        operationId: camel(['webhook', ...type.split('.')]),
        tags: ['Webhooks'],
        summary: `${type} event`,
        description:
          'POSTed to the configured URL while the webhook is enabled. Verify the signature over the raw body before parsing; deduplicate on the event id.',
        parameters: Object.entries(SIGNATURE_HEADERS).map(([name, description]) => ({
          name,
          in: 'header',
          required: true,
          description,
          schema: { type: 'string' },
        })),
        requestBody: { required: true, content: json(schema) },
        responses: {
          '2XX': { description: 'Acknowledged' },
          default: { description: 'Anything else (or no answer within 10 seconds) is retried with backoff' },
        },
      },
    };
  }
  // The union of every event, told apart by `type` (OpenAPI's discriminator; the schema file stays plain JSON Schema).
  schemas['events.envelope'] = {
    ...schemas['events.envelope'],
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(Object.entries(index.events.types).map(([t, p]) => [t, schemaRef(p).$ref])),
    },
  };
  // No jsonSchemaDialect: the default (the OpenAPI 3.1 base dialect, JSON Schema 2020-12 plus the OpenAPI
  // vocabulary) is what every file uses, and Swagger UI warns about any other value.
  return {
    openapi: '3.1.0',
    info: {
      title: 'Card Issuing API (sandbox)',
      version: '1',
      license: { name: 'UNLICENSED', url: 'https://card-sandbox.dev/contracts/' },
      description:
        'The partner API (/v1) with its webhooks, and the sandbox-only simulation (/sandbox/v1) and operator (/admin/v1) surfaces. Assembled from contracts/*.json by scripts/build-openapi.mjs.',
    },
    servers: [{ url: '/' }],
    tags: TAGS,
    security: [{ apiKey: [] }],
    paths,
    webhooks,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (SANDBOX_ADMIN_TOKEN)' },
      },
      headers: HEADERS,
      parameters: PARAMETERS,
      schemas,
    },
  };
}

export function renderOpenApi(dir = DEFAULT_DIR) {
  return JSON.stringify(buildOpenApi(dir), null, 2) + '\n';
}

/** Where the generated client types live (the console and the CLI read answers through them; test/contracts/typed-client.test.ts proves them on every run). */
export const TYPED_CLIENT_TYPES = join(DEFAULT_DIR, '..', 'src', 'contracts', 'api-types.d.ts');

/**
 * The TypeScript types a partner gets from `npx openapi-typescript <base>/openapi.json` (default options), formatted
 * with the repository's Prettier settings. Dev dependencies only, so loaded on demand.
 */
export async function renderTypedClient(doc) {
  const { default: openapiTS, astToString, COMMENT_HEADER } = await import('openapi-typescript');
  const prettier = await import('prettier');
  const text = COMMENT_HEADER + astToString(await openapiTS(doc));
  const options = (await prettier.resolveConfig(TYPED_CLIENT_TYPES)) ?? {};
  return prettier.format(text, { ...options, parser: 'typescript' });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = join(DEFAULT_DIR, 'openapi.json');
  writeFileSync(out, renderOpenApi());
  console.log(`wrote ${out}`);
  writeFileSync(TYPED_CLIENT_TYPES, await renderTypedClient(buildOpenApi()));
  console.log(`wrote ${TYPED_CLIENT_TYPES}`);
}
