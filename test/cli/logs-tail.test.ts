import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { ensureBuilt, spawnCli, startSandbox, stop, type ServeProcess } from '../helpers/cli-process.js';
import { post } from '../helpers/http-call.js';

/** The banner goes to stderr, so that stdout holds only records (JSON lines with --json). */
const started = (tail: ServeProcess, re: RegExp) => waitFor('the banner on stderr', () => re.test(tail.stderr()));

const KEY = 'sk_test_logs_tail_cli_key_000000000000000';
let sandbox: ServeProcess & { url: string };
beforeAll(async () => {
  ensureBuilt();
  sandbox = await startSandbox(KEY);
});
afterAll(() => sandbox && stop(sandbox));

/** A call with the known key; its answer and the request id the server gave it. */
const posted = async (path: string, body: unknown) => {
  const answer = await post(sandbox.url, KEY, path, body);
  return { ...answer, requestId: answer.headers.get('x-request-id')! };
};

describe('card-sandbox logs tail', () => {
  it('prints a request made after it started: time, method, path, status, code, latency, request id', async () => {
    await posted('/v1/wallet/assetList', {});
    const tail = spawnCli(['logs', 'tail', '--base-url', sandbox.url, '--api-key', KEY, '--interval', '100']);
    try {
      await started(tail, /^Tailing the request log/m);
      const made = await posted('/v1/card/detail', { cardId: 'logs-tail-probe' });
      const [line] = await tail.waitForOutput(
        new RegExp(
          `^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} {2}POST /v1/card/detail {2}${made.status} {2}code 4001 {2}[\\d.]+ ms {2}${made.requestId}$`,
          'm',
        ),
      );
      expect(line).toContain(made.requestId);
      // Neither what was there before it started nor its own polling is printed.
      expect(tail.stdout()).not.toMatch(/wallet\/assetList|sandbox\/v1\/requests/);
    } finally {
      await stop(tail);
    }
  });

  it('--path filters and --json prints each record summary as a JSON line', async () => {
    const tail = spawnCli([
      'logs',
      'tail',
      '--base-url',
      sandbox.url,
      '--api-key',
      KEY,
      '--interval',
      '100',
      '--path',
      '/v1/wallet/assetList',
      '--json',
    ]);
    try {
      await started(tail, /^Tailing the request log .* path \/v1\/wallet\/assetList/m);
      await posted('/v1/card/detail', { cardId: 'not-shown' });
      const made = await posted('/v1/wallet/assetList', {});
      const [json] = await tail.waitForOutput(new RegExp(`^\\{.*"requestId":"${made.requestId}".*\\}$`, 'm'));
      expect(JSON.parse(json)).toMatchObject({
        method: 'POST',
        path: '/v1/wallet/assetList',
        status: 200,
        code: 0,
        replayed: false,
      });
      expect(tail.stdout()).not.toContain('/v1/card/detail');
      // Every line of stdout is a record: `| jq` reads it whole.
      for (const line of tail.stdout().trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
    } finally {
      await stop(tail);
    }
  });

  it('says when a fault dropped the answer: not a plain 200, and what the fault did, under its line', async () => {
    const tail = spawnCli(['logs', 'tail', '--base-url', sandbox.url, '--api-key', KEY, '--interval', '100']);
    try {
      await started(tail, /^Tailing the request log/m);
      const rules = [{ path: '/v1/card/list', dropResponse: true }];
      expect((await posted('/sandbox/v1/faults', { rules })).status).toBe(200);
      // The server ran card/list, then reset the connection: the client gets no answer at all.
      await expect(posted('/v1/card/list', {})).rejects.toThrow();
      const [, head, fault] = (await tail.waitForOutput(
        /^(.* POST \/v1\/card\/list .*)\n {14}(fault: .*)$/m,
      )) as unknown as [string, string, string];
      expect(head).toMatch(/ {2}200 \(dropped: the client got no answer\) {2}code - {2}/);
      expect(fault).toBe(
        'fault: Its answer was dropped: the operation ran and committed, and the client got no answer (connection reset) (a fault of sandbox/v1/faults)',
      );
    } finally {
      await stop(tail);
    }
  });

  it("prints the answer's Sandbox-Hint under its line: a 404's nearest operation", async () => {
    const tail = spawnCli(['logs', 'tail', '--base-url', sandbox.url, '--api-key', KEY, '--interval', '100']);
    try {
      await started(tail, /^Tailing the request log/m);
      const made = await posted('/v1/card/creat', {});
      expect(made.status).toBe(404);
      const [, hint] = (await tail.waitForOutput(
        new RegExp(`^.* POST /v1/card/creat {2}404 .*${made.requestId}\\n {14}(hint: .*)$`, 'm'),
      )) as unknown as [string, string];
      expect(hint).toBe('hint: No operation here; the nearest is POST /v1/card/create.');
    } finally {
      await stop(tail);
    }
  });

  it('a refused key stops it with one message and exit 3', async () => {
    const tail = spawnCli(['logs', 'tail', '--base-url', sandbox.url, '--api-key', 'sk_test_wrong']);
    expect((await tail.exited).code).toBe(3);
    expect(tail.stderr()).toMatch(/API key was refused/);
  });
});
