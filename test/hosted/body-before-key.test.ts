import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, serveOn, type ServeProcess, stop } from '../helpers/cli-process.js';

// Bodies are budgeted before a key is known, for every method (hosted mode, the compiled server). A chunked body
// that never ends, sent on `GET /healthz`, once took 3 GB in 5 s and 3.8 s of CPU, unanswered for 30 s: Node reads
// and drops a body nobody reads, for as long as the request timeout allows. Now a body on a method that takes none
// is refused unread, and any answer given without reading a body (no key, a wrong token, a 404) closes the
// connection: the client is answered and can send no more than its socket buffers hold. The oracle is what the
// client managed to write (bounded by loopback's buffers, a few MB, where before it was unbounded) and the server's
// resident memory (flat), never a duration.

const ADMIN = 'body-before-key-admin-token-0123';
let server: ServeProcess & { url: string };

beforeAll(async () => {
  ensureBuilt();
  server = await serveOn(':memory:', ['--mode', 'hosted'], { SANDBOX_ADMIN_TOKEN: ADMIN });
}, 120_000);
afterAll(async () => {
  if (server) await stop(server);
});

/** What no socket buffer holds: a client that wrote this much was being read. */
const UNREAD_BOUND = 64 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

const residentBytes = () =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))![1]) * 1024;

/** Sends the head, then chunks of an endless body until the server closes the connection (or the bound is passed). */
function endlessBody(method: string, path: string, headers: Record<string, string> = {}) {
  const { port, hostname } = new URL(server.url);
  return new Promise<{ written: number; answer: string }>((resolve) => {
    const socket = connect(Number(port), hostname);
    let written = 0;
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve({ written, answer: answer.split('\r\n')[0]! }));
    const pump = () => {
      while (!socket.destroyed && written < UNREAD_BOUND) {
        socket.write(`${CHUNK.length.toString(16)}\r\n`);
        socket.write(CHUNK);
        written += CHUNK.length;
        if (!socket.write('\r\n')) return void socket.once('drain', pump);
      }
      socket.destroy();
    };
    socket.on('connect', () => {
      const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n${extra.join('')}\r\n`);
      pump();
    });
  });
}

describe('bodies are budgeted before a key is known, for every method', () => {
  it.each([
    ['GET', '/healthz', {}, 'HTTP/1.1 400 Bad Request'],
    ['HEAD', '/healthz', {}, 'HTTP/1.1 400 Bad Request'],
    ['DELETE', '/v1/webhook', {}, 'HTTP/1.1 400 Bad Request'],
    ['GET', '/v1/webhook', { 'X-API-KEY': 'sk_sandbox_unknown' }, 'HTTP/1.1 400 Bad Request'],
    ['POST', '/v1/card/list', { 'Content-Type': 'application/json' }, 'HTTP/1.1 401 Unauthorized'],
    ['POST', '/nowhere', {}, 'HTTP/1.1 404 Not Found'],
    ['POST', '/admin/v1/accounts', { 'Content-Type': 'application/json' }, 'HTTP/1.1 401 Unauthorized'],
    ['POST', '/console/cards', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'HTTP/1.1 303 See Other'],
  ])('an endless body on %s %s is answered unread and its connection closed', async (method, path, headers, status) => {
    const before = residentBytes();
    const { written, answer } = await endlessBody(method, path, headers);
    // The answer is written before the close; a client still sending when the server closes may see a reset
    // instead (TCP drops what it has not read), which is what a client that does not stop earns.
    expect(['', status]).toContain(answer);
    expect(written).toBeLessThan(UNREAD_BOUND);
    expect(residentBytes() - before).toBeLessThan(32 * 1024 * 1024);
  });

  it('three endless GET bodies at once leave the server answering a keyed read', async () => {
    const created = await fetch(`${server.url}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ depositAddress: null }),
    });
    const { apiKey } = (await created.json()) as { apiKey: string };
    const flood = Array.from({ length: 3 }, () => endlessBody('GET', '/healthz'));
    const read = await fetch(`${server.url}/v1/wallet/assetList`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(read.status).toBe(200);
    for (const { written } of await Promise.all(flood)) expect(written).toBeLessThan(UNREAD_BOUND);
  });
});
