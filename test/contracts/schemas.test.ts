import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { contractsDir, readIndex, readSchemaFiles } from '../../src/contracts/files.js';
import { hasContract } from '../../src/contracts/registry.js';
import { closeObjects } from '../../src/contracts/strict.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { skipBecause } from '../helpers/skip.js';

const dir = contractsDir();

describe('contracts/', () => {
  it('every schema compiles under ajv strict mode (draft 2020-12), open and closed', () => {
    for (const transform of [(s: object) => s, closeObjects]) {
      const ajv = new Ajv2020({ strict: true, allErrors: true });
      addFormats.default(ajv);
      const files = readSchemaFiles(dir);
      for (const f of files) ajv.addSchema(transform(f.schema));
      for (const f of files) expect(() => ajv.getSchema(f.schema.$id), f.path).not.toThrow();
    }
  });

  it('every schema declares draft 2020-12 and an $id that is its own path', () => {
    const { base } = readIndex(dir);
    for (const f of readSchemaFiles(dir)) {
      expect(f.schema.$schema, f.path).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(f.schema.$id, f.path).toBe(base + f.path);
    }
  });

  it('index.json names only schema files that exist', () => {
    const index = readIndex(dir);
    const named = [
      index.events.envelope,
      ...Object.values(index.events.types),
      ...Object.values(index.operations).flatMap((op) => [op.request, ...Object.values(op.responses)]),
    ].filter((p): p is string => p !== null);
    for (const p of named) expect(existsSync(join(dir, p)), p).toBe(true);
  });

  it('an operation has only the fields the index declares, and inFlightExempt marks what releases holds, what counts them, and the operator API', () => {
    const fields = ['tag', 'summary', 'security', 'idempotent', 'request', 'requestRequired'].concat([
      'recorded',
      'faultable',
      'readiness',
      'inFlightExempt',
      'maxBodyBytes',
      'maxBodyValues',
    ]);
    const operations = Object.entries(readIndex(dir).operations);
    for (const [key, op] of operations) {
      expect(
        Object.keys(op).filter((f) => ![...fields, 'responses'].includes(f)),
        key,
      ).toEqual([]);
      expect([undefined, true], key).toContain(op.inFlightExempt);
    }
    // Written out, not derived: a partner's way out of a full budget is a contract, changed on purpose only (and
    // faults/held, which a test polls while its requests are held, however many).
    const releasing = [
      'POST /sandbox/v1/clock',
      'POST /sandbox/v1/faults/clear',
      'POST /sandbox/v1/faults/held',
      'POST /sandbox/v1/faults/release',
      'POST /sandbox/v1/reset',
    ];
    const operator = operations.map(([key]) => key).filter((key) => key.split(' ')[1]!.startsWith('/admin/v1/'));
    expect(
      operations
        .filter(([, op]) => op.inFlightExempt)
        .map(([key]) => key)
        .sort(),
    ).toEqual([...releasing, ...operator].sort());
  });

  it('no contract file is hidden from commits by .gitignore', (ctx) => {
    const paths = readSchemaFiles(dir).map((f) => join(dir, f.path));
    const r = spawnSync('git', ['check-ignore', '--no-index', ...paths], { cwd: dir, encoding: 'utf8' });
    if (r.error || r.status === 128) skipBecause(ctx, `not a git checkout: ${r.error?.message ?? r.stderr.trim()}`);
    // 1: none of the paths is ignored; 0 would list the ignored ones.
    expect([r.status, r.stdout.trim()]).toEqual([1, '']);
  });

  it('every example a schema shows in the reference validates strictly against it', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(ajv);
    const files = readSchemaFiles(dir);
    for (const f of files) ajv.addSchema(closeObjects(f.schema));
    const withExamples = files.filter((f) => Array.isArray(f.schema.examples));
    expect(withExamples.length).toBeGreaterThan(10);
    for (const f of withExamples) {
      const validate = ajv.getSchema(f.schema.$id)!;
      for (const example of f.schema.examples as unknown[])
        expect([f.path, validate(example), validate.errors]).toEqual([f.path, true, null]);
    }
  });

  it('lists the seven event types of the spec', () => {
    expect(Object.keys(readIndex(dir).events.types).sort()).toEqual(
      [
        'card.3ds.requested',
        'card.cancelled',
        'card.created',
        'card.frozen',
        'card.unfrozen',
        'transaction.created',
        'transaction.updated',
      ].sort(),
    );
  });
});

describe('coverage of the served routes', () => {
  let sb: TestSandbox | undefined;
  afterEach(async () => sb?.close());

  it('every route the sandbox serves under /v1, /sandbox/v1 and /admin/v1 has a contract', () => {
    sb = createTestSandbox();
    const routes = createApp(sb.deps)
      .routes.filter((r) => r.method !== 'ALL' && /^\/(v1|sandbox\/v1|admin\/v1)\//.test(r.path))
      .map((r) => `${r.method} ${r.path.replace(/\/$/, '').replace(/:(\w+)/g, '{$1}')}`);
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.filter((key) => !hasContract(key.split(' ')[0], key.split(' ')[1]))).toEqual([]);
  });
});
