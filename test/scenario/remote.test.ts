import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type Config } from '../../src/config.js';
import { embeddedTarget } from '../../src/cli/embedded-target.js';
import { loadAll, runScenarios, type RunnerOptions } from '../../src/scenario/runner.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { listen } from '../helpers/loopback.js';
import { gate } from '../helpers/gate.js';

const config: Config = Object.freeze({
  ...DEFAULT_CONFIG,
  port: 0,
  dbPath: ':memory:',
  apiKey: 'sk_test_remote_key_0123456789abcdefghijklmn',
  adminToken: 'remote-admin',
});
let server: RunningServer;
let dir: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'remote-'));
  server = await startServer({ config });
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The sandbox as a target without child sandboxes (an older version) shows it: /sandbox/v1/sandboxes/* answer 404. */
async function withoutChildSandboxes(target: string): Promise<{ url: string; server: Server }> {
  const proxy = gate(target, async (req) =>
    req.url!.startsWith('/sandbox/v1/sandboxes') ? [404, '{"code":404,"message":"No route"}'] : undefined,
  );
  return { url: await listen(proxy), server: proxy };
}

async function run(text: string, opts: RunnerOptions) {
  writeFileSync(join(dir, 'r.yaml'), text);
  const loaded = await loadAll([join(dir, 'r.yaml')], dir);
  if (!loaded.ok) throw loaded.errors[0];
  return (await runScenarios(loaded.scenarios, opts))[0];
}

describe('--base-url: against a running sandbox', () => {
  it('with --admin-token, each file gets a fresh account with its settings', async () => {
    const r = await run(
      'name: remote\naccount: { balance: 100, depositFeeRate: "0" }\nsteps:\n  - request: POST /v1/card/create\n    body: { amount: 50, currency: USDT }\n    capture: { card: $.cardId }\n  - request: POST /v1/card/asset\n    body: { cardId: "{{card}}" }\n    expect: { body: { availableAmount: "50" } }\n',
      { baseUrl: server.url, adminToken: config.adminToken },
    );
    expect(r.steps.filter((s) => !s.ok)).toEqual([]);
  });

  it('with only --api-key, each file runs in a child sandbox of the key account: its settings apply, the key account is untouched', async () => {
    const opts = { baseUrl: `${server.url}/`, apiKey: config.apiKey };
    const first = await run(
      'name: a\naccount: { balance: 70, depositFeeRate: "0" }\nsteps:\n  - request: POST /v1/card/create\n    body: { amount: 10, currency: USDT }\n',
      opts,
    );
    expect(first.steps.filter((s) => !s.ok)).toEqual([]);
    const again = await run(
      'name: b\nsteps:\n  - request: POST /v1/card/list\n    expect: { body: { cardList: [] } }\n',
      opts,
    );
    expect(again.ok).toBe(true);
    const refused = await run('name: c\naccount: { requireIdempotencyKey: true }\nsteps: []\n', opts);
    expect(refused.steps[0].failure!.message).toBe('account.requireIdempotencyKey needs --admin-token');
    const own = await fetch(`${server.url}/v1/card/list`, {
      method: 'POST',
      headers: { 'X-API-KEY': config.apiKey!, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(((await own.json()) as { cardList: unknown[] }).cardList).toEqual([]);
    const children = await fetch(`${server.url}/sandbox/v1/sandboxes/list`, {
      method: 'POST',
      headers: { 'X-API-KEY': config.apiKey!, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(((await children.json()) as { sandboxes: unknown[] }).sandboxes).toEqual([]);
  });
  it('with only --api-key on a target without child sandboxes, files share that account: account.balance resets it, other settings need the admin token', async () => {
    const older = await withoutChildSandboxes(server.url);
    try {
      const opts = { baseUrl: older.url, apiKey: config.apiKey };
      const first = await run(
        'name: a\naccount: { balance: 70 }\nsteps:\n  - request: POST /v1/card/create\n    body: { amount: 10, currency: USDT }\n',
        opts,
      );
      expect(first.ok).toBe(true);
      const again = await run(
        'name: b\naccount: { balance: 70 }\nsteps:\n  - request: POST /v1/card/list\n    expect: { body: { cardList: [] } }\n',
        opts,
      );
      expect(again.steps.filter((s) => !s.ok)).toEqual([]);
      const refused = await run('name: c\naccount: { depositFeeRate: "0" }\nsteps: []\n', opts);
      expect(refused.steps[0].failure!.message).toBe('account.depositFeeRate needs --admin-token');
    } finally {
      older.server.close();
    }
  });
});

describe('the spec says to check code even on a 200', () => {
  it('a 2xx whose code is not 0 fails the step unless the body was expected', async () => {
    const odd = createServer((req, res) => {
      const body = req.url === '/sandbox/v1/reset' ? { code: 0, message: 'ok' } : { code: 9999, message: 'odd' };
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    });
    const url = await listen(odd);
    try {
      const r = await run(
        'name: odd\nsteps:\n  - request: POST /v1/card/list\n    expect: { body: { code: 9999 }, contract: false }\n  - request: POST /v1/card/list\n    expect: { contract: false }\n',
        { baseUrl: url, apiKey: 'k' },
      );
      expect(r.steps.map((s) => s.ok)).toEqual([true, false]);
      expect(r.steps[1].failure!.diff).toEqual([{ path: '$.code', expected: '0', actual: '9999' }]);
    } finally {
      odd.close();
    }
  });
});

describe('docs/scenarios.md', () => {
  it('its complete example passes, embedded', async () => {
    const doc = readFileSync('docs/scenarios.md', 'utf8');
    const example = /## A complete example\n\n```yaml\n([\s\S]*?)```/.exec(doc)![1];
    const r = await run(example, { embedded: () => embeddedTarget() });
    expect(r.steps.filter((s) => !s.ok)).toEqual([]);
    expect(r.steps.length).toBeGreaterThanOrEqual(8);
  });
});
