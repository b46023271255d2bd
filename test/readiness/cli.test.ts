import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, spawnCli, startSandbox, stop, type ServeProcess } from '../helpers/cli-process.js';
import { carelessReceiver, goodReceiver, type PartnerReceiver } from './partners.js';
import { freePort } from '../helpers/loopback.js';
import { call, post as postTo } from '../helpers/http-call.js';

// `card-sandbox readiness` against a compiled server process, as a partner's CI runs it: the exit status says
// whether a check failed, the JUnit file has one test case per check.

const KEY = 'sk_test_readiness_cli_key_00000000000000000';
let sandbox: ServeProcess & { url: string };
let dir: string;

beforeAll(async () => {
  ensureBuilt();
  sandbox = await startSandbox(KEY);
  dir = mkdtempSync(join(tmpdir(), 'readiness-cli-'));
}, 120_000);

afterAll(async () => {
  if (sandbox) await stop(sandbox);
  rmSync(dir, { recursive: true, force: true });
});

const args = (...more: string[]) => ['readiness', '--base-url', sandbox.url, '--api-key', KEY, ...more];

/** A POST with the account's key. */
const post = (path: string, body: Record<string, unknown>) => postTo(sandbox.url, KEY, path, body);

/** No webhook: the receiver checks are not observed (nothing can be signed). */
async function removeWebhook(): Promise<void> {
  expect((await call(sandbox.url, KEY, 'DELETE', '/v1/webhook')).status).toBe(200);
}

/** Makes the receiver the account's webhook; returns the secret it answered. */
async function configure(url: string): Promise<string> {
  const res = await call(sandbox.url, KEY, 'PUT', '/v1/webhook', { url });
  expect(res.status).toBe(200);
  return (res.body.secret as string | undefined) ?? '';
}

const WAITING = /^Waiting until every check is decided, or the window ends; Ctrl-C ends it now\.$/m;

/** Starts the command, waits until it says what to exercise, then Ctrl-C: it stops the run and prints the report. */
async function interrupted(extra: string[]) {
  const cli = spawnCli(args(...extra));
  await cli.waitForOutput(WAITING);
  cli.child.kill('SIGINT');
  const { code } = await cli.exited;
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

const testcases = (xml: string) => [...xml.matchAll(/<testcase [^>]*name="([^"]+)"/g)].map((m) => m[1]!.split(':')[0]);

describe('card-sandbox readiness', () => {
  it('answers --help with its usage and exit 0', async () => {
    const r = await runCli(['readiness', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^usage: card-sandbox readiness --base-url URL --api-key KEY \[--webhook-url URL\] \[--window SECONDS\] \[--full-window\] \[--junit FILE\]/,
    );
  });

  it('waits for the window, then prints every check; nothing observed fails nothing: exit 0', async () => {
    const r = await runCli(args('--window', '1'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Readiness run rdy_\w{24} started: the window ends at \d\d:\d\d:\d\d UTC \(1 s\)\.$/m);
    expect(r.stdout.match(/^NOT OBSERVED {2}/gm)).toHaveLength(11);
    expect(r.stdout).toMatch(/^0 passed, 0 failed, 11 not observed/m);
  });

  it('exits 0 when no check fails: the JUnit file passes the receiver checks and skips what was not observed', async () => {
    let secret = '';
    const rx = await goodReceiver(
      () => secret,
      () => Date.now() / 1000,
    );
    try {
      secret = await configure(rx.url);
      const junit = join(dir, 'good.xml');
      const r = await interrupted(['--junit', junit]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^PASS {10}Receiver refuses a delivery with a bad signature$/m);
      expect(r.stdout).toMatch(/^5 passed, 0 failed, 6 not observed/m);
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toMatch(/<testsuite name="card-sandbox readiness rdy_\w{24}" tests="11" failures="0" skipped="6">/);
      expect(testcases(xml)).toEqual([
        'receiver-accepts-signed',
        'receiver-rejects-bad-signature',
        'receiver-rejects-stale-timestamp',
        'receiver-rejects-tampered-body',
        'receiver-accepts-duplicate',
        'idempotency-key-on-writes',
        'retry-after-dropped-response',
        'retry-after-server-error',
        'waits-retry-after',
        'no-tight-loop-on-inventory',
        'ledger-agrees',
      ]);
      expect(xml.match(/<skipped message="[^"]*See docs\/readiness\.md#[a-z-]+"\/>/g)).toHaveLength(6);
    } finally {
      await rx.close();
    }
  });

  it('exits 1 when a check fails, printing its evidence and advice; the JUnit file has the failures', async () => {
    const rx: PartnerReceiver = await carelessReceiver();
    try {
      await configure(rx.url);
      const junit = join(dir, 'careless.xml');
      const r = await interrupted(['--junit', junit]);
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toMatch(
        /^FAIL {10}Receiver refuses a delivery with a bad signature\n {14}evidence: rdl_\w{24} \(HTTP 200, \d+ ms\)\n {14}advice: .*See docs\/readiness\.md#receiver-rejects-bad-signature$/m,
      );
      expect(r.stdout).toMatch(/^2 passed, 3 failed, 6 not observed/m);
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toMatch(/tests="11" failures="3" skipped="6"/);
      expect(xml).toMatch(/<failure message="[^"]*constant time[^"]*">evidence: rdl_\w{24} \(HTTP 200, \d+ ms\)/);
    } finally {
      await rx.close();
    }
  });

  it('prints which request a check paired with which, under its result', async () => {
    await removeWebhook();
    const cli = spawnCli(args('--window', '600'));
    await cli.waitForOutput(WAITING);
    expect((await post('/v1/card/list', {})).status).toBe(429);
    expect((await post('/v1/card/list', {})).status).toBe(200); // at once: no wait for Retry-After
    cli.child.kill('SIGINT');
    expect((await cli.exited).code).toBe(1);
    expect(cli.stdout()).toMatch(
      /^FAIL {10}After a 429, the next request waits at least Retry-After\n {14}paired: req_\S+ \(the 429, Retry-After 2 s\) with req_\S+ \(the next request, \/v1\/card\/list\), \d+\.\d\d s later\n {14}evidence: req_/m,
    );
  });

  it('exits as soon as its run is stopped elsewhere (the console, the API), with the report and why it ended', async () => {
    await removeWebhook();
    const cli = spawnCli(args('--window', '600'));
    const [, runId] = (await cli.waitForOutput(/^Readiness run (rdy_\w{24}) started/m)) as unknown as [string, string];
    await cli.waitForOutput(WAITING);
    const res = await post('/sandbox/v1/readiness/stop', { runId });
    expect(res.status).toBe(200);
    // Not the 600 s window: the command notices the stop on its next poll and exits.
    const { code } = await cli.exited;
    expect(code, cli.stderr()).toBe(0);
    expect(cli.stdout()).toMatch(
      /^The run was stopped at \d\d:\d\d:\d\d UTC \(Ctrl-C, the console or readiness\/stop\)\.$/m,
    );
    expect(cli.stdout()).toMatch(/^0 passed, 0 failed, 11 not observed/m);
  });

  it('prints why each check was not observed, and "and N more" past 20 evidence ids', async () => {
    await removeWebhook();
    const cli = spawnCli(args('--window', '600'));
    await cli.waitForOutput(WAITING);
    expect((await post('/sandbox/v1/wallet/seed', { amount: 100 })).status).toBe(200);
    // 25 card/create without an Idempotency-Key: each one is evidence of the failed check.
    for (let i = 0; i < 25; i++)
      expect((await post('/v1/card/create', { amount: 1, currency: 'USDT' })).status).toBe(200);
    cli.child.kill('SIGINT');
    const { code } = await cli.exited;
    const out = cli.stdout();
    expect(code, out + cli.stderr()).toBe(1);
    expect(out).toMatch(/^FAIL {10}Every card\/create and card\/deposit carries an Idempotency-Key$/m);
    const evidence = /^ {14}evidence: (.*)$/m.exec(out.slice(out.indexOf('Every card/create')))![1]!;
    expect(evidence.split(', ')).toHaveLength(21);
    expect(evidence).toMatch(/, and 5 more$/);
    // Every check not observed says why, under its line.
    const unobserved = [...out.matchAll(/^NOT OBSERVED {2}.*\n {14}why: (.+)$/gm)].map((m) => m[1]!);
    expect(unobserved.length).toBe((out.match(/^NOT OBSERVED/gm) ?? []).length);
    expect(unobserved.length).toBeGreaterThan(0);
    expect(unobserved.join('\n')).toMatch(/No test delivery was sent: the account has no webhook/);
    expect(unobserved.join('\n')).toMatch(/No 4009 or 4010 in the window\./);
  });

  it('prints the receiver URL redacted: a card number in its path, a key and a secret in its query', async () => {
    const port = await freePort();
    const key = 'sk_sandbox_receiverKey0123456789abcdefghijkl';
    const receiver = `http://127.0.0.1:${port}/hooks/4549-2403-7220-9645/in?apiKey=${key}&secret=hunter2-hunter2`;
    // Test deliveries are signed with the account's webhook secret: it needs a webhook configured.
    await configure(`http://127.0.0.1:${port}/configured`);
    const r = await runCli(args('--window', '1', '--webhook-url', receiver));
    // Nothing listens there: the receiver checks fail, or are not observed within the 1 s window (exit 1 or 0);
    // what matters here is what was printed.
    expect([0, 1], r.stderr).toContain(r.code);
    const printed = r.stdout + r.stderr;
    expect(printed).toContain(`to http://127.0.0.1:${port}/hooks/****-****-****-9645/in?apiKey=`);
    for (const secret of ['4549-2403-7220', key.slice(11), 'hunter2-hunter2']) expect(printed).not.toContain(secret);
  });

  it('exits 3 when the sandbox is unreachable', async () => {
    const r = await runCli(['readiness', '--base-url', `http://127.0.0.1:${await freePort()}`, '--api-key', KEY]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/unreachable/);
  });

  it('exits 3 when the key is refused', async () => {
    const r = await runCli(['readiness', '--base-url', sandbox.url, '--api-key', 'sk_test_not_a_key']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/API key was refused/);
  });

  it('exits 2 on a usage error: a window out of range, an unknown option', async () => {
    const r = await runCli(args('--window', '0'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--window must be a whole number of seconds from 1 to 86400/);
    const unknown = await runCli(args('--no-such-option'));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--no-such-option[\s\S]*usage: card-sandbox readiness/);
  });
});
