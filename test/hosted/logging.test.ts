import { afterEach, describe, expect, it } from 'vitest';
import { logged, startHosted, type HostedServer } from '../helpers/hosted-server.js';

// What the hosted server writes to its log when clients misbehave.

let server: HostedServer | undefined;
afterEach(async () => {
  await server?.close(0);
  server = undefined;
});

describe('a client that drops its connection mid-request', () => {
  it('is logged at info as aborted by the client, never as an unexpected error or a 5xx', async () => {
    server = await startHosted({}, 'debug');
    const apiKey = await server.newApiKey();
    const socket = await server.socket();
    socket.write(
      `POST /v1/card/list HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-KEY: ${apiKey}\r\n` +
        'Content-Length: 100\r\n\r\n{"a":',
    );
    await logged(server, (r) => r.msg === 'request received' && r.path === '/v1/card/list');
    socket.destroy();
    const line = await logged(server, (r) => r.path === '/v1/card/list' && r.msg !== 'request received');
    expect(line).toMatchObject({ level: 30, msg: 'request aborted by the client', status: 499 });
    expect(server.logs.records.filter((r) => (r.level as number) >= 40)).toEqual([]);
  });
});

describe('card numbers are masked in every log line, however they are written', () => {
  it.each([
    ['4549 2403 7220 9645', '**** **** **** 9645'],
    ['4549-2403-7220-9645', '****-****-****-9645'],
    ['4549240372209645', '************9645'],
    ['Mozilla 4549240372209645 12', 'Mozilla ************9645 12'],
    ['3782 822463 10005', '**** ****** *0005'],
  ])('a header holding %j reaches the debug log as %j', async (userAgent, masked) => {
    server = await startHosted({}, 'debug');
    const res = await fetch(`${server.url}/healthz`, { headers: { 'User-Agent': userAgent } });
    expect(res.status).toBe(200);
    const line = await logged(server, (r) => r.path === '/healthz' && r.msg === 'request received');
    expect((line.headers as Record<string, string>)['user-agent']).toBe(masked);
    expect(server.logs.text).not.toContain(userAgent.replace(/\D/g, '').slice(0, 12));
    expect(server.logs.text).not.toMatch(/4549[ -]?2403|3782[ -]?822463/);
  });

  it('leaves digit groups that are not a card number alone (dates, amounts, ids)', async () => {
    server = await startHosted({}, 'debug');
    const userAgent = 'build 2026-06-01 12 1234 5678 9012 3456';
    await fetch(`${server.url}/healthz`, { headers: { 'User-Agent': userAgent } });
    const line = await logged(server, (r) => r.path === '/healthz' && r.msg === 'request received');
    expect((line.headers as Record<string, string>)['user-agent']).toBe(userAgent);
  });
});
