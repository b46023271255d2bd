import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { TYPED_CLIENT_TYPES, renderTypedClient } from '../../scripts/build-openapi.mjs';
import { readIndex } from '../../src/contracts/files.js';
import { validateEvent } from '../../src/contracts/registry.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { describeEvent, runFlow, sampleEvents } from './typed-client/flow.js';
import { listen } from '../helpers/loopback.js';

// A partner generates a client from the served /openapi.json (openapi-typescript) and uses it with
// openapi-fetch under the strictest compiler flags, with no cast; then the same flow runs against the sandbox.

const FLOW = join(import.meta.dirname, 'typed-client', 'flow.ts');
const ROOT = join(import.meta.dirname, '..', '..');

describe('a typed client generated from /openapi.json', () => {
  let sb: TestSandbox | undefined;
  afterEach(async () => sb?.close());

  it('is the committed src/contracts/api-types.d.ts (npm run build:openapi regenerates it)', async () => {
    sb = createTestSandbox();
    const served = await request(sb.server).get('/openapi.json');
    expect(served.status).toBe(200);
    expect(readFileSync(TYPED_CLIENT_TYPES, 'utf8')).toBe(await renderTypedClient(served.body));
  }, 120_000);

  it('type-checks a flow over every operation under --strict --exactOptionalPropertyTypes --noUncheckedIndexedAccess', () => {
    const flags = ['--strict', '--exactOptionalPropertyTypes', '--noUncheckedIndexedAccess'];
    const options = ['--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '--noEmit', ...flags, ...options, '--types', 'node', FLOW], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 300_000);

  it('the flow uses the generated types as they are: no cast, no any, no non-null assertion', () => {
    const code = readFileSync(FLOW, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '')
      .replace(/'[^'\n]*'|`[^`]*`/g, "''");
    expect(code).not.toMatch(/\bas\s+(?!const\b)[A-Za-z{[(]/);
    expect(code).not.toMatch(/\bany\b/);
    expect(code).not.toMatch(/[\w)\]]!(?!=)/);
    expect(code).not.toMatch(/@ts-/);
  });

  it('builds one typed event of each type, each valid against its contract', () => {
    const events = sampleEvents('2026060117803181873402');
    expect(events.map((e) => e.type).sort()).toEqual(Object.keys(readIndex().events.types).sort());
    for (const e of events) expect(validateEvent(e, { strict: true }), e.type).toEqual([]);
    expect(describeEvent(events[0]!)).toBe('card 2026060117803181873402 created ACTIVE');
  });

  it('runs the flow against the sandbox: every /v1 and /sandbox/v1 operation of the document answers', async () => {
    sb = createTestSandbox();
    const doc = (await request(sb.server).get('/openapi.json')).body as { paths: Record<string, object> };
    const account = await sb.account({ depositAddress: 'auto' });
    const called = await runFlow({ baseUrl: await listen(sb.server), apiKey: account.apiKey, fetch });
    const operations = Object.entries(doc.paths)
      .filter(([path]) => /^\/(v1|sandbox\/v1)\//.test(path))
      .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    const answered = new Set(called.filter((c) => / 2\d\d$/.test(c)).map((c) => c.replace(/ \d+$/, '')));
    expect(operations.filter((op) => !answered.has(op))).toEqual([]);
  }, 120_000);
});
