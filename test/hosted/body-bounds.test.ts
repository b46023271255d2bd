import type { Socket } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHosted, type HostedServer } from '../helpers/hosted-server.js';

// A body is bounded as it arrives. One tenant's 1 MB of nested arrays or endless chunked body is refused
// at the bytes that cross the bound: the server answers before the rest is even sent (so it cannot have buffered or
// parsed it), and the connection stays usable for the next request.

// The documented bounds (docs/hosted.md), written here rather than imported from the code they check.
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_JSON_DEPTH = 64;

let server: HostedServer;
let key: string;
beforeAll(async () => {
  server = await startHosted({}, 'warn');
});
// A key per test: a body spends the key's rate-limit budget by its size (one token per 64 KiB).
beforeEach(async () => {
  key = await server.newApiKey();
});
afterAll(async () => {
  await server.close(0);
});

interface Answer {
  status: number;
  body: unknown;
}

/** Reads HTTP answers off a socket one at a time (each has a Content-Length, as every answer of this server). */
function answers(socket: Socket) {
  let buffered = Buffer.alloc(0);
  let wake: (() => void) | undefined;
  socket.on('data', (d: Buffer) => {
    buffered = Buffer.concat([buffered, d]);
    wake?.();
  });
  return async function next(): Promise<Answer> {
    for (;;) {
      const end = buffered.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = buffered.subarray(0, end).toString();
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length >= end + 4 + length) {
          const body = buffered.subarray(end + 4, end + 4 + length).toString();
          buffered = buffered.subarray(end + 4 + length);
          return { status: Number(head.slice(9, 12)), body: JSON.parse(body) };
        }
      }
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
}

const head = (apiKey: string, extra: string) =>
  `POST /v1/card/list HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nX-API-KEY: ${apiKey}\r\n${extra}\r\n`;

describe('request bodies are bounded as they arrive', () => {
  it('answers 400 once a body nests past the bound, before the rest of a 1 MB body is sent', async () => {
    const socket = await server.socket();
    const next = answers(socket);
    const start = `{"a":${'['.repeat(MAX_JSON_DEPTH + 1)}`;
    socket.write(head(key, `Content-Length: 1000000\r\n`) + start);
    expect(await next()).toEqual({
      status: 400,
      body: { code: 400, message: `request body nests deeper than ${MAX_JSON_DEPTH} levels` },
    });
    socket.destroy();
  });

  it('answers 413 once a chunked body passes 1 MiB, before the body ends', async () => {
    const socket = await server.socket();
    const next = answers(socket);
    socket.write(head(key, 'Transfer-Encoding: chunked\r\n'));
    const chunk = Buffer.alloc(64 * 1024, 'x');
    socket.write(`1\r\n{\r\n`);
    for (let sent = 0; sent <= MAX_BODY_BYTES; sent += chunk.length) {
      socket.write(`${chunk.length.toString(16)}\r\n`);
      socket.write(chunk);
      socket.write('\r\n');
    }
    expect(await next()).toMatchObject({ status: 413 });
    socket.destroy();
  });

  it('discards the rest of a refused body and answers the next request on the same connection', async () => {
    const socket = await server.socket();
    const next = answers(socket);
    const start = `{"a":${'['.repeat(MAX_JSON_DEPTH + 1)}`;
    const length = 200_000;
    socket.write(head(key, `Content-Length: ${length}\r\n`) + start);
    expect((await next()).status).toBe(400);
    socket.write('['.repeat(length - start.length));
    socket.write(head(key, 'Content-Length: 2\r\n') + '{}');
    expect(await next()).toMatchObject({ status: 200, body: { cardList: [] } });
    socket.destroy();
  });

  it('closes the connection of a chunked body that goes on for another 1 MiB after its refusal', async () => {
    const socket = await server.socket();
    const next = answers(socket);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    socket.write(head(key, 'Transfer-Encoding: chunked\r\n'));
    const start = `{"a":${'['.repeat(MAX_JSON_DEPTH + 1)}`;
    socket.write(`${start.length.toString(16)}\r\n${start}\r\n`);
    expect((await next()).status).toBe(400);
    const chunk = Buffer.alloc(64 * 1024, '[');
    for (let sent = 0; sent <= 2 * MAX_BODY_BYTES && !socket.destroyed; sent += chunk.length) {
      socket.write(`${chunk.length.toString(16)}\r\n`);
      socket.write(chunk);
      socket.write('\r\n');
    }
    await closed;
  });

  it('spends the key budget per 64 KiB of a chunked body as it arrives: past it 429 and the connection closed, before 1 MiB', async () => {
    const limited = await startHosted({}, 'warn', 8);
    try {
      const socket = await limited.socket();
      const next = answers(socket);
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.on('error', () => {});
      socket.write(head(await limited.newApiKey(), 'Transfer-Encoding: chunked\r\n'));
      socket.write(`1\r\n{\r\n`);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const answer = next();
      for (let sent = 0; sent <= MAX_BODY_BYTES && !socket.destroyed; sent += chunk.length) {
        socket.write(`${chunk.length.toString(16)}\r\n`);
        socket.write(chunk);
        socket.write('\r\n');
      }
      expect(await answer).toMatchObject({ status: 429, body: { code: 429 } });
      await closed;
    } finally {
      await limited.close(0);
    }
  });

  it('answers 413 to a declared length over 1 MiB from the header, and closes the connection unread', async () => {
    const socket = await server.socket();
    const next = answers(socket);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    socket.write(head(key, `Content-Length: ${10 * 1024 ** 3}\r\n`) + '{"pad":"');
    expect((await next()).status).toBe(413);
    await closed;
  });

  it('answers a large body it does not read (unknown key: 401) and closes the connection instead of reading it', async () => {
    const socket = await server.socket();
    const next = answers(socket);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('error', () => {});
    socket.write(head('not-a-key', `Content-Length: ${MAX_BODY_BYTES}\r\n`) + '{"pad":"');
    expect((await next()).status).toBe(401);
    await closed;
  });
});
