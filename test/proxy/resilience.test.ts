import { connect, createServer, type Server, type Socket } from 'node:net';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, stop } from '../helpers/cli-process.js';
import { jsonLines, startProxyCli, type ProxyProcess } from '../helpers/proxy-process.js';
import { closeServer, listen } from '../helpers/loopback.js';

// The proxy never dies on what the target or a client does (docs/proxy.md, "When the target misbehaves"): an answer
// it cannot pass on is a 502 {code: 502, message} and a violation, silence past --timeout-ms a 504, a client that
// goes away ends only its own exchange; after each, the next request is relayed, and the reports are written.

/** Held sockets a test releases by state (the client has seen what it must see first). */
const held = new Map<string, { socket: Socket; release: () => void }>();
const closedByProxy = new Set<string>();

const OK_BODY = JSON.stringify({ cardList: [] });
const RAW: Record<string, string> = {
  'bad-status': 'HTTP/1.1 099 X\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi',
  'bad-header': 'HTTP/1.1 200 OK\r\nX Bad: y\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi',
  ok:
    'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Request-Id: req_ok\r\nConnection: close\r\n' +
    `Content-Length: ${OK_BODY.length}\r\n\r\n${OK_BODY}`,
};

/** A target written byte by byte on a socket, so it can say what no HTTP library would let it say. */
function rawTarget(): Server {
  return createServer((socket) => {
    let head = '';
    socket.on('error', () => {});
    socket.on('data', function onData(chunk) {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.resume();
      const which = /[?&]case=([\w-]+)/.exec(head)?.[1] ?? 'ok';
      if (RAW[which]) return void socket.end(RAW[which]);
      switch (which) {
        case 'reset-before': // half a status line, then a reset
          socket.write('HTTP/1.1 200 OK\r\nContent-Le');
          return void setImmediate(() => socket.resetAndDestroy());
        case 'reset-mid': // the head and 10 of 100 bytes; reset once the test has seen them arrive
          socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"cardList');
          return void held.set(which, { socket, release: () => socket.resetAndDestroy() });
        case 'slow-body': {
          // a body that never ends: a space now and then, so the proxy's timeout never fires
          socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
          socket.write('5\r\n{"car\r\n');
          const trickle = setInterval(() => socket.write('1\r\n \r\n'), 50);
          socket.on('close', () => {
            clearInterval(trickle);
            closedByProxy.add(which);
          });
          return void held.set(which, { socket, release: () => socket.destroy() });
        }
        case 'silent': // never a byte
          socket.on('close', () => closedByProxy.add(which));
          return void held.set(which, { socket, release: () => socket.destroy() });
      }
    });
  });
}

let target: Server;
let targetUrl: string;
let proxy: ProxyProcess;

beforeAll(async () => {
  ensureBuilt();
  target = rawTarget();
  targetUrl = await listen(target);
}, 300_000);
afterAll(async () => {
  for (const h of held.values()) h.release();
  if (proxy) await stop(proxy);
  await closeServer(target);
});

const post = (c: string, via = proxy) =>
  fetch(`${via.url}/v1/card/list?case=${c}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-API-KEY': 'k' },
    body: '{}',
  });

async function expectOk() {
  const res = await post('ok');
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ cardList: [] });
}

/** A raw client: the head and part of a body, then gone. */
function abortMidRequest(port: number): Promise<void> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write(
        'POST /v1/card/list?case=silent HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":12345',
      );
      s.end();
      s.destroy();
      resolve();
    });
    s.on('error', () => resolve());
  });
}

/** A client that reads the first chunk of the answer and goes away. */
function abortMidAnswer(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/card/list?case=slow-body`, { method: 'POST' }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', () => {});
    req.on('close', () => resolve());
    req.end('{}', undefined);
    setTimeout(() => reject(new Error('no first chunk')), 60_000).unref();
  });
}

describe('card-sandbox proxy, against a target that misbehaves', () => {
  it('answers 502 or 504 with {code, message} for what it cannot pass on, survives clients that go away, relays the next request each time, and writes every report', async () => {
    proxy = await startProxyCli(targetUrl, ['--timeout-ms', '300', '--fail-on-violation', '--max-requests', '10']);

    const badStatus = await post('bad-status');
    expect(badStatus.status).toBe(502);
    expect(await badStatus.json()).toEqual({ code: 502, message: expect.stringMatching(/invalid status code 99/) });
    await expectOk();

    const badHeader = await post('bad-header');
    expect(badHeader.status).toBe(502);
    expect(await badHeader.json()).toMatchObject({ code: 502 });
    await expectOk();

    const reset = await post('reset-before');
    expect(reset.status).toBe(502);
    expect(await reset.json()).toEqual({ code: 502, message: expect.stringMatching(/reset/) });

    const silent = await post('silent');
    expect(silent.status).toBe(504);
    expect(await silent.json()).toEqual({ code: 504, message: expect.stringMatching(/no answer within 300 ms/) });
    await expect.poll(() => closedByProxy.has('silent'), { timeout: 60_000 }).toBe(true);

    // The head and part of the body are with the client when the target resets: the answer stays unfinished.
    const mid = await post('reset-mid');
    expect(mid.status).toBe(200);
    held.get('reset-mid')!.release();
    await expect(mid.text()).rejects.toThrow();
    await expectOk();

    closedByProxy.clear();
    await abortMidRequest(Number(new URL(proxy.url).port));
    await abortMidAnswer(proxy.url);
    // The proxy stopped reading the target of the client that left mid-answer.
    await expect.poll(() => closedByProxy.has('slow-body'), { timeout: 60_000 }).toBe(true);
    await expectOk();
    await expectOk();

    const { code } = await proxy.exited;
    expect(code, proxy.stderr()).toBe(1);
    const out = proxy.outputs();
    const lines = jsonLines(out.report);
    expect(lines.map((l) => [new URL(l.url, 'http://x').searchParams.get('case'), l.status])).toEqual([
      ['bad-status', 502],
      ['ok', 200],
      ['bad-header', 502],
      ['ok', 200],
      ['reset-before', 502],
      ['silent', 504],
      ['reset-mid', 200],
      ['ok', 200],
      ['ok', 200],
      ['ok', 200],
    ]);
    const failed = lines.filter((l) => l.violations.length > 0);
    expect(failed.map((l) => l.violations[0].pointer)).toEqual(['status', 'status', 'status', 'status', 'status']);
    expect(failed.map((l) => l.violations[0].expected)).toEqual(Array(5).fill('an answer the proxy can pass on'));
    expect(out.stdout).toContain('CONTRACT VIOLATION POST /v1/card/list (response)');
    expect(out.junit).toMatch(/<testsuites tests="10" failures="5">/);
    const recorded = jsonLines(out.record);
    expect(recorded.filter((r) => r.proxyError).map((r) => r.status)).toEqual([502, 502, 502, 504, 200]);
    expect(out.stdout).toMatch(/proxy: 10 exchanges, 5 with violations/);
  }, 300_000);

  it('answers a request it cannot parse (conflicting lengths, a negative length) with 400, as an HTTP server does', async () => {
    const own = await startProxyCli(targetUrl);
    try {
      for (const head of ['Content-Length: 5\r\nTransfer-Encoding: chunked', 'Content-Length: -1']) {
        const answer = await new Promise<string>((resolve) => {
          const s = connect(Number(new URL(own.url).port), '127.0.0.1', () =>
            s.write(`POST /v1/card/list HTTP/1.1\r\nHost: x\r\n${head}\r\n\r\n`),
          );
          let text = '';
          s.on('data', (d: Buffer) => (text += d.toString()));
          s.on('close', () => resolve(text));
        });
        expect(answer, head).toMatch(/^HTTP\/1\.1 400 /);
      }
      const res = await post('ok', own);
      expect(res.status).toBe(200);
    } finally {
      await stop(own);
    }
  });

  it('--record appends each exchange as it completes: a proxy killed without warning leaves whole lines', async () => {
    const killed = await startProxyCli(targetUrl);
    for (let i = 0; i < 3; i++) await post('ok', killed);
    await expect.poll(() => jsonLines(killed.outputs().record).length, { timeout: 60_000 }).toBe(3);
    killed.child.kill('SIGKILL');
    await killed.exited;
    const lines = jsonLines(killed.outputs().record);
    expect(lines.map((l) => [l.seq, l.method, l.path, l.status])).toEqual([
      [1, 'POST', '/v1/card/list?case=ok', 200],
      [2, 'POST', '/v1/card/list?case=ok', 200],
      [3, 'POST', '/v1/card/list?case=ok', 200],
    ]);
    expect(lines[0]).toMatchObject({
      request: { body: {} },
      response: { body: { cardList: [] }, headers: { 'x-request-id': 'req_ok' } },
      latencyMs: expect.any(Number),
    });
    expect(lines[0]!.request.headers['x-api-key']).toBeUndefined();
  }, 120_000);
});
