import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ROOT,
  cleanEnv,
  ensureBuilt,
  runCli,
  spawnCli,
  startSandbox,
  stop,
  type ServeProcess,
} from '../helpers/cli-process.js';
import { waitFor } from '../helpers/wait.js';
import { client, type Call } from './flows.js';
import { closeServer, listen } from '../helpers/loopback.js';
import { gate, type GateAnswer } from '../helpers/gate.js';

// Replay never leaves the sandbox (a hostile recording, the compiled CLI against a compiled sandbox). A recording once
// sent the child sandbox's key anywhere ("path": "//host:port/x"), made the child deliver signed requests to the
// recorded receiver, exited 3 on what it could not send, printed "deleted" for a child a 429 kept alive, left its child
// alive after two Ctrl-C, and held the whole file in memory. Each case here is one of those.

const KEY = `sk_sandbox_hostile${'0'.repeat(28)}KEY`;
let sandbox: ServeProcess & { url: string };
let asCaller: Call;
let dir: string;
const servers: Server[] = [];

beforeAll(async () => {
  ensureBuilt();
  sandbox = await startSandbox(KEY, { SANDBOX_SEED_BALANCE: '1000' });
  asCaller = client(sandbox.url, KEY);
  dir = mkdtempSync(join(tmpdir(), 'replay-hostile-'));
}, 300_000);
afterAll(async () => {
  if (sandbox) await stop(sandbox);
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  for (const s of servers.splice(0)) await closeServer(s);
});

/** A server that counts what reaches it (somewhere a replay must never send to). */
async function elsewhere(): Promise<{ url: string; port: number; received: IncomingMessage[] }> {
  const received: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    received.push(req);
    req.resume();
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"received":true}');
  });
  const url = await listen(server);
  servers.push(server);
  return { url, port: Number(new URL(url).port), received };
}

let lines = 0;
/** One recorded exchange, as `proxy --record` writes it. */
function exchange(method: string, path: string, extra: Record<string, unknown> = {}) {
  return {
    seq: ++lines,
    time: new Date(Date.UTC(2026, 5, 1, 0, 0, lines)).toISOString(),
    method,
    path,
    request: { headers: { 'content-type': 'application/json' }, body: {} },
    status: 200,
    response: { headers: { 'content-type': 'application/json' }, body: { code: 0, message: 'ok' } },
    latencyMs: 1,
    ...extra,
  };
}

function recordingFile(name: string, exchanges: object[]): string {
  const file = join(dir, `${name}.jsonl`);
  writeFileSync(file, exchanges.map((x) => JSON.stringify(x)).join('\n') + '\n');
  return file;
}

const replayCli = (file: string, baseUrl = sandbox.url) =>
  runCli(['replay', file, '--base-url', baseUrl, '--api-key', KEY]);

/** The caller's children whose name says they are a replay's. */
const replayChildren = async () =>
  ((await asCaller('POST', '/sandbox/v1/sandboxes/list', {})).body.sandboxes as { accountId: string; name: string }[])
    .filter((c) => c.name.startsWith('replay of'))
    .map((c) => c.accountId);

describe('replay never leaves the sandbox', () => {
  it('a recording whose path would leave the sandbox sends nothing and exits 2', async () => {
    const target = await elsewhere();
    const host = `127.0.0.1:${target.port}`;
    for (const path of [`//${host}/x`, `http://${host}/x`, `/\\${host}/x`, `https:${host}`, `v1/card/list`, '/v1/ x']) {
      const file = recordingFile('leave', [exchange('POST', '/v1/wallet/assetList'), exchange('GET', path)]);
      const r = await replayCli(file);
      expect(r.code, path).toBe(2);
      expect(r.stderr).toMatch(/is not a recording: line 2: "path" /);
    }
    expect(target.received).toEqual([]);
    expect(await replayChildren()).toEqual([]);
  }, 120_000);

  it.each([
    ['a method fetch cannot send', exchange('TRACE', '/v1/card/list'), /"method" "TRACE"/],
    ['a malformed method', exchange('GE T', '/v1/card/list'), /"method" "GE T"/],
    [
      'a header name that is no token',
      exchange('POST', '/v1/card/list', { request: { headers: { 'x bad': '1' }, body: {} } }),
      /request header name "x bad"/,
    ],
    [
      'a header value with a line break',
      exchange('POST', '/v1/card/list', { request: { headers: { 'x-note': 'a\r\nX-API-KEY: b' }, body: {} } }),
      /request header x-note has a value no request can carry/,
    ],
  ])('%s is a malformed recording: exit 2, nothing sent', async (_what, bad, message) => {
    const file = recordingFile('unsendable', [exchange('POST', '/v1/wallet/assetList'), bad]);
    const r = await replayCli(file);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(await replayChildren()).toEqual([]);
  });

  it('an invalid --base-url is a usage error (2)', async () => {
    const file = recordingFile('fine', [exchange('POST', '/v1/wallet/assetList')]);
    const r = await replayCli(file, 'http://[::1');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--base-url must be an http\(s\) URL/);
  });

  it('the child delivers nothing: a recorded webhook, its events and a readiness run reach no receiver', async () => {
    const receiver = await elsewhere();
    const hook = `${receiver.url}/hooks`;
    const file = recordingFile('deliveries', [
      exchange('PUT', '/v1/webhook', {
        request: { headers: { 'content-type': 'application/json' }, body: { url: hook, enabled: true } },
      }),
      exchange('POST', '/v1/card/create', {
        request: { headers: { 'content-type': 'application/json' }, body: { amount: 10, currency: 'USDT' } },
      }),
      exchange('POST', '/sandbox/v1/clock', {
        request: { headers: { 'content-type': 'application/json' }, body: { advanceSeconds: 3600 } },
      }),
      exchange('POST', '/sandbox/v1/readiness/run', {
        request: { headers: { 'content-type': 'application/json' }, body: { webhookUrl: hook, windowSeconds: 1 } },
      }),
    ]);
    const r = await replayCli(file);
    expect([0, 1], r.stderr).toContain(r.code);
    expect(r.stdout).toMatch(/\(deleted\)/);
    expect(receiver.received).toEqual([]);
  }, 120_000);
});

describe('replay deletes its child, or says it could not', () => {
  /** A gate in front of the sandbox, listening, closed after the test; its URL. */
  async function openGate(decide: (req: IncomingMessage) => Promise<GateAnswer | undefined>) {
    const server = gate(sandbox.url, decide);
    const url = await listen(server);
    servers.push(server);
    return url;
  }

  it('recorded credentials and hop-by-hop headers, in any letter case, are never sent, and a GET body is left off', async () => {
    const seen: IncomingMessage[] = [];
    const url = await openGate(async (req) => {
      seen.push(req);
      return undefined;
    });
    const recorded = `sk_sandbox_recorded${'1'.repeat(28)}`;
    const headers = {
      'Content-Type': 'application/json',
      'X-Api-Key': recorded,
      Host: 'recorded.example',
      'Transfer-Encoding': 'chunked',
      Connection: 'close',
      Authorization: `Bearer ${recorded}`,
      'X-Partner-Note': 'kept',
    };
    const file = recordingFile('headers', [
      exchange('POST', '/v1/wallet/assetList', { request: { headers, body: {} } }),
      exchange('GET', '/v1/webhook', {
        request: { headers, body: {} },
        response: { headers: {}, body: { configured: false } },
      }),
    ]);
    const r = await replayCli(file, url);
    // Both sent and compared (the hand-written answers may differ): nothing aborted the replay (exit 3).
    expect([0, 1], r.stdout + r.stderr).toContain(r.code);
    expect(r.stdout).toMatch(/replay: 2 exchanges, 2 compared, 0 skipped/);
    const replayed = seen.filter((req) => req.url === '/v1/wallet/assetList' || req.url === '/v1/webhook');
    expect(replayed).toHaveLength(2);
    for (const req of replayed) {
      expect(req.headers['x-api-key']).toMatch(/^sk_sandbox_\w+$/);
      expect(req.headers['x-api-key']).not.toBe(recorded);
      expect(req.headers.authorization).toBeUndefined();
      expect(req.headers.host).not.toBe('recorded.example');
      expect(req.headers['transfer-encoding']).toBeUndefined();
      expect(req.headers['x-partner-note']).toBe('kept');
    }
    expect(replayed[1]!.headers['content-length'] ?? '0').toBe('0');
  }, 120_000);

  it('a child it cannot delete (a 429 every time) is exit 3 with its id, never "deleted"', async () => {
    const tooMany = JSON.stringify({ code: 429, message: 'Too many requests' });
    const url = await openGate(async (req) =>
      req.url === '/sandbox/v1/sandboxes/delete' ? [429, tooMany] : undefined,
    );
    const file = recordingFile('undeletable', [exchange('POST', '/v1/wallet/assetList')]);
    const r = await replayCli(file, url);
    const [left] = await replayChildren();
    try {
      expect(r.code, r.stderr).toBe(3);
      expect(left).toMatch(/^acct_/);
      expect(r.stderr).toContain(`could not delete child sandbox ${left} (HTTP 429 Too many requests)`);
      expect(r.stdout).toContain(`Ran in child sandbox ${left} (NOT deleted)`);
      expect(r.stdout).not.toMatch(/\(deleted\)/);
    } finally {
      await asCaller('POST', '/sandbox/v1/sandboxes/delete', { accountId: left });
    }
  }, 120_000);

  it('two Ctrl-C in a row still delete the child: the second abandons the exchange under way', async () => {
    let holding = false;
    const url = await openGate(async (req) => {
      if (req.url !== '/v1/card/list') return undefined;
      holding = true;
      // Held for good: only the replay's second Ctrl-C gets it out.
      return new Promise(() => {});
    });
    const file = recordingFile('interrupted', [
      exchange('POST', '/v1/wallet/assetList'),
      exchange('POST', '/v1/card/list'),
    ]);
    const proc = spawnCli(['replay', file, '--base-url', url, '--api-key', KEY]);
    await waitFor('the card/list held', () => holding);
    expect(await replayChildren()).toHaveLength(1);
    proc.child.kill('SIGINT');
    await waitFor('the first Ctrl-C taken', () => proc.stderr().includes('Ctrl-C again abandons it'));
    proc.child.kill('SIGINT');
    const { code } = await proc.exited;
    expect(code, proc.stderr()).toBe(130);
    expect(proc.stdout()).toMatch(/\(deleted\)/);
    expect(await replayChildren()).toEqual([]);
  }, 120_000);
});

describe('replay streams its recording', () => {
  it('a recording far larger than the replay may hold replays under a 24 MB heap', async () => {
    // 100,000 exchanges (about 30 MB on disk): all of them held at once run out of the heap given here (measured: a
    // script that parses them into one array dies at 24 MB), so only a replay that streams them passes.
    const file = join(dir, 'long.jsonl');
    const out = createWriteStream(file);
    const body = { note: 'x'.repeat(120) };
    for (let i = 1; i <= 100_000; i++) {
      // One instant for all: no clock advance between them, and every one skipped (the operator API is not replayed).
      const line = exchange('POST', '/admin/v1/accounts', {
        seq: i,
        time: '2026-06-01T00:00:00.000Z',
        request: { headers: { 'content-type': 'application/json' }, body },
      });
      if (!out.write(JSON.stringify(line) + '\n'))
        await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    await new Promise<void>((resolve) => out.end(resolve));
    const proc = spawnCli(
      ['--max-old-space-size=24', join(ROOT, 'dist/src/cli/main.js'), 'replay', file, '--base-url', sandbox.url],
      { command: process.execPath, env: cleanEnv({ SANDBOX_API_KEY: KEY }) },
    );
    const { code } = await proc.exited;
    expect(code, proc.stderr().slice(0, 2000)).toBe(0);
    expect(proc.stdout()).toMatch(/replay: 100000 exchanges, 0 compared, 100000 skipped/);
  }, 300_000);
});
