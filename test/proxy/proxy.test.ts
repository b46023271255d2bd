import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import type { Violation } from '../../src/proxy/check.js';
import { startProxy, type RunningProxy } from '../../src/proxy/server.js';
import { expandFiles } from '../../src/scenario/glob.js';
import { consoleReport } from '../../src/scenario/report.js';
import { loadAll, runScenarios } from '../../src/scenario/runner.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { ensureBuilt, spawnCli, stop } from '../helpers/cli-process.js';
import { startProxyCli } from '../helpers/proxy-process.js';
import { closeServer, listen } from '../helpers/loopback.js';

// The validating proxy (docs/proxy.md): relays unchanged, reports every departure from the contracts.

let closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

/** The server on loopback, closed after the test. */
async function listenForTheTest(server: Server): Promise<string> {
  closers.push(() => closeServer(server));
  return listen(server);
}

const OK_ASSET = JSON.stringify({ availableAmount: '10', frozenAmount: '0', currency: 'USD' });
const LISTED = {
  cardId: '1',
  binId: 'VISA-EFI-454924',
  cardStatus: 'ACTIVE',
  maskedCardNo: '************1234',
  availableBalance: 1,
  frozenAmount: 0,
  currency: 'USD',
};

/** A target that drifted from the contracts in three ways (and answers one route correctly). */
function driftedTarget(): Server {
  return createServer((req, res) => {
    const id = { 'X-Request-Id': `req_${req.url!.split('/').pop()}` };
    const json = { 'Content-Type': 'application/json', ...id };
    req.resume();
    req.on('end', () => {
      switch (req.url) {
        case '/v1/card/list': // a changed type
          return res.writeHead(200, json).end(JSON.stringify({ cardList: [{ ...LISTED, cardStatus: 5 }] }));
        case '/v1/card/asset': // a dropped header
          return res.writeHead(200, { 'Content-Type': 'application/json' }).end(OK_ASSET);
        case '/v1/card/freeze': // a wrong status
          return res.writeHead(202, json).end(JSON.stringify({ code: 0, message: 'ok' }));
        default:
          return res.writeHead(200, json).end(JSON.stringify({ cardList: [LISTED] }));
      }
    });
  });
}

const post = (base: string, path: string, body: unknown) =>
  fetch(base + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-KEY': 'k' },
    body: JSON.stringify(body),
  });

describe('card-sandbox proxy (in process)', () => {
  it('reports zero violations over the whole scenario library run through it against the sandbox, but for the one lost response, which the client gets as a 502', async () => {
    const sandbox: RunningServer = await startServer({
      config: { ...DEFAULT_CONFIG, port: 0, dbPath: ':memory:', adminToken: 'proxy-admin', bootstrapAccount: false },
    });
    closers.push(async () => void (await sandbox.close()));
    const violations: Violation[] = [];
    let exchanges = 0;
    const proxy: RunningProxy = await startProxy({
      target: sandbox.url,
      onExchange: (_x, found) => {
        exchanges++;
        violations.push(...found);
      },
    });
    closers.push(() => proxy.close());
    const loaded = await loadAll(await expandFiles(['scenarios/*.yaml', 'scenarios/*.json']));
    if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.message).join('\n'));
    const results = await runScenarios(loaded.scenarios, { baseUrl: proxy.url, adminToken: 'proxy-admin' });
    // A response the sandbox drops on purpose (a `dropResponse` fault) is an answer the proxy cannot pass on: the
    // client gets a 502 where, without the proxy, it would see the connection reset. That step alone fails.
    const failedSteps = results.flatMap((r) => r.steps.filter((s) => !s.ok && !s.skipped));
    expect(
      failedSteps.map((s) => [s.file, s.label]),
      consoleReport(
        results.filter((r) => !r.ok),
        0,
      ),
    ).toEqual([['scenarios/idempotency-in-flight.yaml', 'so the client sees a network error...']]);
    expect(failedSteps[0]!.failure!.actual).toEqual({ code: 502, message: expect.stringMatching(/reset/) });
    expect(exchanges).toBeGreaterThan(100);
    expect(violations).toEqual([
      expect.objectContaining({
        operation: 'POST /v1/card/deposit',
        pointer: 'status',
        expected: 'an answer the proxy can pass on',
      }),
    ]);
  }, 180_000);

  it('returns the target answer unchanged: status, headers and body bytes', async () => {
    const target = await listenForTheTest(
      createServer((req, res) => {
        req.resume();
        res.writeHead(418, { 'X-Odd': 'yes', 'Content-Type': 'text/plain' }).end(`teapot ${req.method} ${req.url}`);
      }),
    );
    const proxy = await startProxy({ target, onExchange: () => {} });
    closers.push(() => proxy.close());
    const res = await post(proxy.url, '/v1/card/list?x=1', {});
    expect(res.status).toBe(418);
    expect(res.headers.get('x-odd')).toBe('yes');
    expect(await res.text()).toBe('teapot POST /v1/card/list?x=1');
  });

  it('reports each drift of a drifted target with its pointer, and still relays its answers', async () => {
    const target = await listenForTheTest(driftedTarget());
    const seen: Violation[][] = [];
    const proxy = await startProxy({ target, onExchange: (_x, v) => seen.push(v) });
    closers.push(() => proxy.close());

    const list = await post(proxy.url, '/v1/card/list', {});
    expect(await list.json()).toEqual({ cardList: [{ ...LISTED, cardStatus: 5 }] });
    await post(proxy.url, '/v1/card/asset', { cardId: '1' });
    const freeze = await post(proxy.url, '/v1/card/freeze', { cardId: '1' });
    expect(freeze.status).toBe(202);
    await post(proxy.url, '/v1/card/list?variant=conforming', { status: 'ACTIVE' });
    await expect.poll(() => seen.length, { timeout: 30_000 }).toBe(4);

    const [changedType, droppedHeader, wrongStatus, fine] = seen;
    expect(changedType).toContainEqual({
      operation: 'POST /v1/card/list',
      direction: 'response',
      pointer: '/cardList/0/cardStatus',
      expected: 'one of "ACTIVE", "FROZEN", "CANCELLING", "CANCELLED"',
      seen: '5',
      requestId: 'req_list',
    });
    expect(droppedHeader).toEqual([
      {
        operation: 'POST /v1/card/asset',
        direction: 'response',
        pointer: 'header:X-Request-Id',
        expected: 'present on every answer',
        seen: '(absent)',
        requestId: '(none)',
      },
    ]);
    expect(wrongStatus).toEqual([
      expect.objectContaining({ operation: 'POST /v1/card/freeze', pointer: 'status', seen: '202' }),
    ]);
    expect(fine).toEqual([]);
  });

  it('reports a request the target accepted although its contract refuses it', async () => {
    const target = await listenForTheTest(driftedTarget());
    const seen: Violation[][] = [];
    const proxy = await startProxy({ target, onExchange: (_x, v) => seen.push(v) });
    closers.push(() => proxy.close());
    await post(proxy.url, '/v1/card/cancel', { cardId: 7 });
    await expect.poll(() => seen.length, { timeout: 30_000 }).toBe(1);
    expect(seen[0]).toContainEqual(
      expect.objectContaining({ direction: 'request', pointer: '/cardId', expected: 'type "string"', seen: '7' }),
    );
  });
});

describe('card-sandbox proxy (the CLI)', () => {
  beforeAll(() => ensureBuilt(), 300_000);

  it('--fail-on-violation exits 1 after a drifted target, printing a readable block, JSONL and JUnit', async () => {
    const target = await listenForTheTest(driftedTarget());
    const cli = await startProxyCli(target, ['--fail-on-violation', '--max-requests', '2']);
    closers.push(() => void stop(cli));
    const { url, files } = cli;
    const { report, junit } = files;
    await post(url, '/v1/card/list', {});
    await post(url, '/v1/card/freeze', { cardId: '1' });
    const { code } = await cli.exited;
    expect(code).toBe(1);
    expect(cli.stdout()).toContain(
      [
        'CONTRACT VIOLATION POST /v1/card/list (response)',
        '  at:       /cardList/0/cardStatus',
        '  contract: one of "ACTIVE", "FROZEN", "CANCELLING", "CANCELLED"',
        '  seen:     5',
        '  request:  req_list',
      ].join('\n'),
    );
    const lines = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.url, l.status, l.violations.length > 0])).toEqual([
      ['/v1/card/list', 200, true],
      ['/v1/card/freeze', 202, true],
    ]);
    expect(existsSync(junit)).toBe(true);
    expect(readFileSync(junit, 'utf8')).toMatch(/<testsuites tests="2" failures="2">/);
  }, 120_000);

  it('exits 0 without --fail-on-violation, and on SIGTERM', async () => {
    const target = await listenForTheTest(driftedTarget());
    const cli = spawnCli(['proxy', '--target', target, '--port', '0']);
    await expect.poll(() => /listening on (\S+)/.exec(cli.stdout()), { timeout: 30_000 }).not.toBeNull();
    const url = /listening on (\S+)/.exec(cli.stdout())![1]!;
    await post(url, '/v1/card/freeze', { cardId: '1' });
    await expect.poll(() => cli.stdout(), { timeout: 30_000 }).toContain('CONTRACT VIOLATION POST /v1/card/freeze');
    expect((await stop(cli)).code).toBe(0);
  }, 120_000);

  it('answers --help with its usage and exit status 0', async () => {
    const cli = spawnCli(['proxy', '--help']);
    expect((await cli.exited).code).toBe(0);
    expect(cli.stdout()).toContain('usage: card-sandbox proxy --target URL');
  }, 60_000);
});
