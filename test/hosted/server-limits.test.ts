import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { tenantHoldings } from '../../src/http/middleware/tenant-budget.js';
import { waitFor } from '../helpers/wait.js';
import { HOSTED_ADMIN_TOKEN, startHosted, type HostedServer } from '../helpers/hosted-server.js';
import { untilClosed } from '../helpers/loopback.js';

// Silent, trickling and idle connections are cut by server timeouts, and the number of open
// connections is capped. The tests set short limits and wait for the server to act (never a fixed duration).

let server: HostedServer | undefined;
afterEach(async () => {
  await server?.close(0);
  server = undefined;
});

const LIMIT_TEST = { timeout: 30_000 };

describe('server timeouts and connection cap (hosted mode)', () => {
  it('closes a connection that sends nothing within the headers timeout', LIMIT_TEST, async () => {
    server = await startHosted({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const sent = await untilClosed(await server.socket());
    expect(sent === '' || sent.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('answers 408 to headers sent slower than the headers timeout', LIMIT_TEST, async () => {
    server = await startHosted({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const socket = await server.socket();
    const closed = untilClosed(socket);
    socket.write('POST /v1/card/list HTTP/1.1\r\nHost: x\r\n');
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('answers 408 to a body trickled slower than the request timeout', LIMIT_TEST, async () => {
    server = await startHosted({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const apiKey = await server.newApiKey();
    const socket = await server.socket();
    const closed = untilClosed(socket);
    socket.write(
      `POST /v1/card/list HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-KEY: ${apiKey}\r\n` +
        'Content-Length: 100\r\n\r\n{',
    );
    const trickle = setInterval(() => socket.writable && socket.write(' '), 100);
    try {
      expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      clearInterval(trickle);
    }
    expect(server.logs.records.filter((r) => r.level === 50)).toEqual([]);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', LIMIT_TEST, async () => {
    server = await startHosted({ keepAliveTimeoutMs: 200 });
    const socket = await server.socket();
    const closed = untilClosed(socket);
    socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
    const sent = await closed;
    expect(sent).toMatch(/^HTTP\/1\.1 200 /);
    expect(sent).toContain('{"status":"ok",');
  });

  it(
    'at maxConnections a new connection closes an idle one (between requests); with every one busy, its request is answered 429',
    LIMIT_TEST,
    async () => {
      // 3 in all, 1 of them anonymous (no key carried yet), 1 per client: docs/hosted.md.
      server = await startHosted({ maxConnections: 3 });
      const account = await new Promise<{ accountId: string; apiKey: string }>((resolve) => {
        const headers = { authorization: `Bearer ${HOSTED_ADMIN_TOKEN}`, 'content-type': 'application/json' };
        const req = httpRequest(
          `${server!.url}/admin/v1/accounts`,
          { method: 'POST', headers, agent: false },
          (res) => {
            let text = '';
            res.on('data', (d: Buffer) => (text += d.toString()));
            res.on('end', () => resolve(JSON.parse(text)));
          },
        );
        req.end('{"depositAddress":null}');
      });
      const inFlight = () => tenantHoldings(server!.deps, account.accountId).inFlight;
      // A request under way (its body withheld): its connection is busy, and a tenant's.
      const busy: { socket: Socket; answer: Promise<string> }[] = [];
      const holdOne = async () => {
        const s = await server!.socket();
        busy.push({ socket: s, answer: untilClosed(s) });
        s.write(
          `POST /v1/wallet/assetList HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${account.apiKey}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n',
        );
        await waitFor(`${busy.length} requests in flight`, () => inFlight() === busy.length);
      };
      await holdOne();
      await holdOne();
      // A keep-alive connection that carried a request and sits between requests: it carries none.
      const idle = await server.socket();
      const closedIdle = untilClosed(idle);
      const answered = new Promise((resolve) => idle.once('data', resolve));
      idle.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await answered;
      // The cap is reached: the next connection closes the idle one, never a busy one, and is served.
      const next = await server.socket();
      const served = untilClosed(next);
      next.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(await served).toMatch(/^HTTP\/1\.1 200 /);
      expect(await closedIdle).toMatch(/^HTTP\/1\.1 200 /);

      // Every connection busy: a newcomer is not closed unanswered, its request gets a 429 that says when to retry.
      await holdOne();
      const refused = await server.socket();
      const answer = untilClosed(refused);
      refused.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      const text = await answer;
      expect(text).toMatch(/^HTTP\/1\.1 429 /);
      expect(text).toMatch(/\r\nretry-after: 1\r\n/i);
      expect(text).toMatch(/\r\nconnection: close\r\n/i);
      expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toEqual({
        code: 429,
        message: 'Too many connections: the server holds 3, every one carrying a request; retry in 1 s',
      });

      for (const { socket } of busy) socket.write('{}');
      const answers = await Promise.all(busy.map((b) => b.answer));
      expect(answers.map((a) => a.slice(0, 12))).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200', 'HTTP/1.1 200']);
    },
  );
});

describe('server limits are options (flags beat environment beat the mode defaults)', () => {
  const hosted = ['--mode', 'hosted', '--admin-token', 'a-hosted-admin-token'];

  it('hosted mode defaults to tight limits, local mode to Node defaults', () => {
    // As docs/hosted.md gives them; the local ones are Node 20's own defaults.
    expect(loadConfig(hosted, {}).config.server).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 4_096,
    });
    expect(loadConfig([], {}).config.server).toEqual({
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 300_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 0,
    });
  });

  it('reads each limit from its flag and its environment variable', () => {
    const env = {
      SANDBOX_HEADERS_TIMEOUT_MS: '2000',
      SANDBOX_REQUEST_TIMEOUT_MS: '4000',
      SANDBOX_KEEP_ALIVE_TIMEOUT_MS: '1000',
      SANDBOX_MAX_CONNECTIONS: '50',
    };
    expect(loadConfig(hosted, env).config.server).toEqual({
      headersTimeoutMs: 2000,
      requestTimeoutMs: 4000,
      keepAliveTimeoutMs: 1000,
      maxConnections: 50,
    });
    const flags = ['--headers-timeout', '3000', '--request-timeout', '9000', '--keep-alive-timeout', '700'];
    expect(loadConfig([...hosted, ...flags, '--max-connections', '0'], env).config.server).toEqual({
      headersTimeoutMs: 3000,
      requestTimeoutMs: 9000,
      keepAliveTimeoutMs: 700,
      maxConnections: 0,
    });
  });

  it.each([
    [['--headers-timeout', '5000', '--request-timeout', '1000'], 'headers timeout must not exceed the request timeout'],
    [['--max-connections=-1'], 'max connections must be an integer in 0..1000000'],
    [['--keep-alive-timeout', '5s'], 'keep-alive timeout must be an integer in 100..3600000'],
  ])('refuses %j: %s', (flags, message) => {
    expect(() => loadConfig([...hosted, ...flags], {})).toThrow(new ConfigError(message));
  });
});
