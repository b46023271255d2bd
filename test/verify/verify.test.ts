import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { runVerify } from '../../src/cli/verify.js';
import { recordKeyedWrites } from '../helpers/keyed-writes.js';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';
import { listen } from '../helpers/loopback.js';

/** Collects what the CLI writes, as the terminal would show it. */
function capture() {
  const text = { out: '', err: '' };
  const out = { write: (s: string) => ((text.out += s), true) };
  const err = { write: (s: string) => ((text.err += s), true) };
  return { text, out, err };
}

let sandbox: TestSandbox | undefined;
let fake: Server | undefined;
afterEach(async () => {
  await sandbox?.close();
  fake?.close();
  sandbox = fake = undefined;
});

describe('card-sandbox verify', () => {
  it('exits 2 on usage errors and names the problem', async () => {
    const c = capture();
    expect(await runVerify(['--api-key', 'k'], c.out, c.err)).toBe(2);
    expect(c.text.err).toContain('--base-url URL (or SANDBOX_BASE_URL) is required');
    expect(await runVerify(['--base-url', 'ftp://x', '--api-key', 'k'], c.out, c.err)).toBe(2);
    expect(await runVerify(['--bogus'], c.out, c.err)).toBe(2);
  });

  it('exits 3 when the target is unreachable, without a stack trace', async () => {
    const closed = createServer();
    const url = await listen(closed);
    closed.close();
    const c = capture();
    expect(await runVerify(['--base-url', url, '--api-key', 'k'], c.out, c.err)).toBe(3);
    expect(c.text.err).toMatch(/target unreachable: .*ECONNREFUSED/);
    expect(c.text.err).not.toMatch(/\n\s+at /);
  });

  it('passes every check, mutations and sandbox checks included, against this sandbox', async () => {
    sandbox = createTestSandbox();
    // Webhook signatures carry wall time, and the harness verifies them with a 300 s tolerance against real time.
    sandbox.wall.ms = Date.now();
    const url = await listen(sandbox.server);
    const { apiKey } = await sandbox.account({ balance: 100 });
    // An account in use: a card with a transaction and one without, so no read check has to skip.
    const used = await sandbox.post(apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    await sandbox.post(apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    await sandbox.post(apiKey, '/sandbox/v1/card/authorize', { cardId: used.body.cardId, amount: 2, currency: 'USD' });
    const c = capture();
    const code = await runVerify(['--base-url', url, '--api-key', apiKey, '--allow-mutations'], c.out, c.err);
    expect(c.text.out).not.toContain('FAIL');
    expect(code).toBe(0);
    expect(c.text.out).toMatch(/\d+ passed, 0 failed, 0 skipped .*\(card sandbox\)/);
    expect(c.text.out).not.toContain(apiKey);
  });

  it('sends every keyed write it makes with an Idempotency-Key, as readiness asks of a partner', async () => {
    sandbox = createTestSandbox();
    sandbox.wall.ms = Date.now();
    const { apiKey } = await sandbox.account({ balance: 100 });
    const recorder = await recordKeyedWrites(await listen(sandbox.server));
    try {
      const c = capture();
      expect(
        await runVerify(['--base-url', recorder.url, '--api-key', apiKey, '--allow-mutations'], c.out, c.err),
      ).toBe(0);
      expect(new Set(recorder.writes.map((w) => w.path))).toEqual(
        new Set(['/v1/card/create', '/v1/card/deposit', '/v1/card/freeze', '/v1/card/unfreeze', '/v1/card/cancel']),
      );
      expect(recorder.writes.filter((w) => !w.key)).toEqual([]);
    } finally {
      await recorder.close();
    }
  });

  it('refuses mutations without --allow-mutations and reports them as skipped', async () => {
    sandbox = createTestSandbox();
    const url = await listen(sandbox.server);
    const { apiKey } = await sandbox.account({ balance: 100 });
    const c = capture();
    expect(await runVerify(['--base-url', url, '--api-key', apiKey], c.out, c.err)).toBe(0);
    expect(c.text.out).toMatch(/SKIP {2}mutation: card\/create .*needs --allow-mutations/);
    const wallet = await sandbox.post(apiKey, '/v1/wallet/assetList');
    expect(wallet.body.assetList[0].availableAmount).toBe('100');
  });

  it('reports a drifting target: each failure with the request as curl (key redacted) and the raw answer', async () => {
    // A target that gets auth right but answers every read with HTML and lookups with the wrong code.
    fake = createServer((req, res) => {
      if (req.headers['x-api-key'] !== 'live-key') {
        res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"code":11002,"message":"bad key"}');
      } else if (req.url === '/v1/card/detail') {
        res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"nope"}');
      } else {
        res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>maintenance</html>');
      }
    });
    const url = await listen(fake);
    const c = capture();
    const junitFile = `${process.env.TMPDIR ?? '/tmp'}/verify-${process.pid}.xml`;
    const code = await runVerify(['--base-url', url, '--api-key', 'live-key', '--junit', junitFile], c.out, c.err);
    expect(code).toBe(1);
    expect(c.text.out).toMatch(/FAIL {2}lookup: card\/detail of an unknown cardId is 4001/);
    expect(c.text.out).toContain(`request: curl -si -X POST '${url}/v1/card/detail' -H "X-API-KEY: $API_KEY"`);
    expect(c.text.out).toContain('answer (HTTP 404): {"error":"nope"}');
    expect(c.text.out).not.toContain('live-key');
    const { readFileSync, rmSync } = await import('node:fs');
    const xml = readFileSync(junitFile, 'utf8');
    rmSync(junitFile);
    expect(xml).toMatch(/<testsuite name="card-sandbox verify" tests="\d+" failures="[1-9]\d*"/);
    expect(xml).not.toContain('live-key');
  });
});

describe('card-sandbox verify --properties', () => {
  it('runs the model-based sequences against this sandbox and every answer matches the model', async () => {
    sandbox = createTestSandbox();
    const url = await listen(sandbox.server);
    const { apiKey } = await sandbox.account();
    const c = capture();
    const argv = ['--base-url', url, '--api-key', apiKey, '--allow-mutations', '--properties', '--num-runs', '100'];
    const code = await runVerify([...argv, '--only', 'properties'], c.out, c.err);
    expect(c.text.out).toMatch(/PASS {2}properties: 100 random sequences/);
    expect(code).toBe(0);
  });

  it('prints the seed and the shrunk command list when the target forgets Idempotent-Replayed', async () => {
    sandbox = createTestSandbox();
    const upstream = await listen(sandbox.server);
    const { apiKey } = await sandbox.account();
    // A target that executes correctly but drops the replay header: only a keyed retry can notice.
    fake = createServer(
      (req, res) =>
        void (async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of req) chunks.push(chunk as Buffer);
          const answer = await fetch(upstream + req.url, {
            method: req.method,
            headers: req.headers as Record<string, string>,
            body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
          });
          const headers = Object.fromEntries([...answer.headers].filter(([h]) => h !== 'idempotent-replayed'));
          res.writeHead(answer.status, headers).end(Buffer.from(await answer.arrayBuffer()));
        })(),
    );
    const url = await listen(fake);
    const c = capture();
    const argv = ['--base-url', url, '--api-key', apiKey, '--allow-mutations', '--properties', '--num-runs', '40'];
    expect(await runVerify([...argv, '--only', 'properties', '--seed', '7'], c.out, c.err)).toBe(1);
    expect(c.text.out).toMatch(/FAIL {2}properties:/);
    expect(c.text.out).toMatch(/seed: 7/);
    expect(c.text.out).toMatch(/Counterexample: .*retrySame/);
    expect(c.text.out).toContain('did not replay the stored answer');
  });
});
