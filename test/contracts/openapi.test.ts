import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { buildOpenApi, renderOpenApi } from '../../scripts/build-openapi.mjs';
import { contractsDir, readIndex } from '../../src/contracts/files.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

type Doc = Record<string, any>;

function refsOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refsOf(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsOf(v, out);
    }
  }
  return out;
}

function resolvePointer(doc: Doc, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .reduce<any>(
      (node, part) => (node === undefined ? undefined : node[part.replace(/~1/g, '/').replace(/~0/g, '~')]),
      doc,
    );
}

describe('OpenAPI 3.1 document', () => {
  it('contracts/openapi.json is exactly what npm run build:openapi produces from the schemas', () => {
    expect(readFileSync(join(contractsDir(), 'openapi.json'), 'utf8')).toBe(renderOpenApi(contractsDir()));
  });

  it('every $ref resolves inside the document', () => {
    const doc = buildOpenApi(contractsDir()) as Doc;
    const broken = refsOf(doc).filter((ref) => !ref.startsWith('#/') || resolvePointer(doc, ref) === undefined);
    expect(broken).toEqual([]);
  });

  it('has every operation of index.json, and every event type under the top-level webhooks', () => {
    const doc = buildOpenApi(contractsDir()) as Doc;
    expect(doc.openapi).toBe('3.1.0');
    const index = readIndex();
    for (const key of Object.keys(index.operations)) {
      const [method, path] = key.split(' ');
      expect(doc.paths[path]?.[method.toLowerCase()], key).toBeDefined();
    }
    expect(Object.keys(doc.webhooks).sort()).toEqual(Object.keys(index.events.types).sort());
    expect(doc.webhooks['card.created'].post.parameters.map((p: Doc) => p.name)).toContain('Service-Signature');
  });
});

describe('GET /openapi.json and GET /docs', () => {
  let sb: TestSandbox;
  afterEach(async () => sb.close());

  it('serves the document without an API key', async () => {
    sb = createTestSandbox();
    const res = await request(sb.server).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
  });

  it('serves a reference page whose every asset is local (works with no internet access)', async () => {
    sb = createTestSandbox();
    const page = await request(sb.server).get('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).not.toMatch(/https?:\/\//);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(5);
    for (const asset of assets) {
      const res = await request(sb.server).get(asset).buffer(true);
      expect(res.status, asset).toBe(200);
    }
    const init = await request(sb.server).get('/docs/init.js');
    expect(init.text).toContain("url: '/openapi.json'");
  });

  it('answers 404 with the error body for a file it does not serve', async () => {
    sb = createTestSandbox();
    const res = await request(sb.server).get('/docs/package.json');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe(404);
  });
});
