import { readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, stop } from '../helpers/cli-process.js';
import { jsonLines, startProxyCli, type ProxyProcess } from '../helpers/proxy-process.js';
import { closeServer, listen } from '../helpers/loopback.js';

// Bodies stream through the proxy both ways with backpressure, and at most 1 MiB of each is kept for checking: a
// target streaming hundreds of MB leaves the proxy's memory where it was (its resident set is sampled from /proc
// while the bytes go through), the first byte reaches the client while the target still holds the rest, and the
// big body is reported as not checked, never as a violation.

const MIB = 1024 * 1024;
const DOWNLOAD_MIB = Number(process.env.PROXY_STREAM_MIB ?? 300);
const UPLOAD_MIB = 200;
/** Generous: the proxy idles at 50-80 MB; buffering the download alone would take it past 1 GB. */
const RSS_BOUND_MB = 300;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

let firstChunkSeen: () => void = () => {};
const state = { targetFinished: false, targetWroteFirst: false, uploaded: 0 };

function streamingTarget(): Server {
  return createServer((req, res) => {
    if (req.url === '/v1/upload') {
      req.on('data', (c: Buffer) => (state.uploaded += c.length));
      req.on('end', () =>
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ received: state.uploaded })),
      );
      return;
    }
    req.resume();
    const seen = new Promise<void>((resolve) => (firstChunkSeen = resolve));
    res.writeHead(200, { 'Content-Type': 'application/json', 'X-Request-Id': 'req_stream' });
    res.write('[');
    state.targetWroteFirst = true;
    // The rest waits until the client has seen the first chunk: a proxy that buffered the body would hang here.
    void seen.then(async () => {
      let sent = 0; // the opening bracket aside
      while (sent < DOWNLOAD_MIB * MIB) {
        if (!res.write(CHUNK)) await new Promise((r) => res.once('drain', r));
        sent += CHUNK.length;
      }
      state.targetFinished = true;
      res.end(']');
    });
  });
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

let target: Server;
let proxy: ProxyProcess;

beforeAll(async () => {
  ensureBuilt();
  target = streamingTarget();
  proxy = await startProxyCli(await listen(target), ['--max-requests', '2']);
}, 300_000);
afterAll(async () => {
  if (proxy) await stop(proxy);
  await closeServer(target);
});

describe.skipIf(process.platform !== 'linux')(
  'card-sandbox proxy streams bodies (resident set read from /proc)',
  () => {
    it('relays an answer and a request of hundreds of MB with bounded memory, the first byte before the target finished', async () => {
      const pid = proxy.child.pid!;
      const idle = rssMb(pid);
      let peak = idle;
      let atFirstByte: typeof state | undefined;
      const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 25);
      try {
        const received = await new Promise<number>((resolve, reject) => {
          const req = request(`${proxy.url}/v1/download`, { method: 'POST' }, (res) => {
            let bytes = 0;
            res.on('data', (c: Buffer) => {
              if (bytes === 0) {
                atFirstByte = { ...state };
                firstChunkSeen();
              }
              bytes += c.length;
            });
            res.on('end', () => resolve(bytes));
            res.on('error', reject);
          });
          req.on('error', reject);
          req.end('{}');
        });
        expect(received).toBe(DOWNLOAD_MIB * MIB + 2);
        // Decided by state: the client had its first byte while the target had written only that.
        expect(atFirstByte).toMatchObject({ targetWroteFirst: true, targetFinished: false });

        const upload = await new Promise<string>((resolve, reject) => {
          const req = request(
            `${proxy.url}/v1/upload`,
            { method: 'POST', headers: { 'Content-Type': 'application/json' } },
            (res) => {
              let text = '';
              res.on('data', (c: Buffer) => (text += c.toString()));
              res.on('end', () => resolve(text));
            },
          );
          req.on('error', reject);
          let sent = 0;
          Readable.from(
            (function* () {
              while (sent < UPLOAD_MIB * MIB) {
                sent += CHUNK.length;
                yield CHUNK;
              }
            })(),
          ).pipe(req);
        });
        expect(JSON.parse(upload)).toEqual({ received: UPLOAD_MIB * MIB });
      } finally {
        clearInterval(sampler);
      }
      console.log(`proxy resident set: ${idle.toFixed(0)} MB idle, ${peak.toFixed(0)} MB peak while streaming`);
      expect(peak).toBeLessThan(RSS_BOUND_MB);

      expect((await proxy.exited).code).toBe(0);
      const [download, uploaded] = jsonLines(proxy.outputs().report);
      expect(download).toMatchObject({
        url: '/v1/download',
        violations: [],
        notChecked: [`response body of ${DOWNLOAD_MIB * MIB + 2} bytes, over ${MIB} bytes`],
      });
      expect(uploaded).toMatchObject({
        url: '/v1/upload',
        notChecked: [`request body of ${UPLOAD_MIB * MIB} bytes, over ${MIB} bytes`],
      });
      expect(proxy.stdout()).toContain(
        `NOT CHECKED POST /v1/download: response body of ${DOWNLOAD_MIB * MIB + 2} bytes`,
      );
      const recorded = jsonLines(proxy.outputs().record);
      expect(recorded[0]!.response).toMatchObject({
        body: null,
        note: expect.stringMatching(/^not recorded: body of/),
      });
    }, 300_000);
  },
);
