import {
  createServer,
  request as httpRequest,
  validateHeaderName,
  validateHeaderValue,
  type ClientRequest,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { BodyCapture, bodyView } from './capture.js';
import { checkExchange, type Exchange, type ProxyFailure, type Violation } from './check.js';

// The validating proxy's transport. Each request streams to the target as it comes (method, path, query, headers,
// body), and the target's answer streams back as it comes (status, headers, body, compression untouched), with
// backpressure both ways; at most 1 MiB of each body is kept for the checks. The proxy never dies on what either
// side does: an answer it cannot pass on (an invalid status line, a malformed header, a reset before the answer)
// is a 502 `{code, message}`, silence longer than the timeout a 504, and a client that goes away simply ends its
// exchange (docs/design.md section 13, "The proxy, safe to point at production"). The judgement runs after the
// answer is on its way, so it never delays what is relayed.

export const DEFAULT_TIMEOUT_MS = 30_000;

export interface ProxyOptions {
  target: string;
  port?: number;
  host?: string;
  /** No byte from the target for this long: 504 (before the answer) or the client's connection cut (during it). */
  timeoutMs?: number;
  /**
   * Called once per exchange with its violations ([] when it conforms or has no contract). Both hold what went by,
   * unredacted: anything written from them goes through ProxyOutputs (outputs.ts), which redacts.
   */
  onExchange: (exchange: Exchange, violations: Violation[]) => void;
}

export interface RunningProxy {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Headers that describe one connection, not the message (RFC 9110 7.6.1); node sets its own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

/** Raw header pairs without the hop-by-hop ones, names as received. */
function endToEnd(raw: string[], host?: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    out.push(name, lower === 'host' && host !== undefined ? host : raw[i + 1]!);
  }
  return out;
}

function flat(headers: IncomingMessage['headers']): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** Why node could not write this answer to the client, or undefined when it can (checked before a byte is sent). */
function unrelayable(answer: IncomingMessage, headers: string[]): string | undefined {
  const status = answer.statusCode ?? 0;
  if (!Number.isInteger(status) || status < 200 || status > 599) return `an invalid status code ${status}`;
  if (/[^\t\x20-\x7e\x80-\xff]/.test(answer.statusMessage ?? '')) return 'an invalid reason phrase';
  try {
    for (let i = 0; i < headers.length; i += 2) {
      validateHeaderName(headers[i]!);
      validateHeaderValue(headers[i]!, headers[i + 1]!);
    }
  } catch (err) {
    return `a malformed header (${(err as Error).message})`;
  }
  return undefined;
}

/** The cause of a failed connection to the target, in a few words. */
function causeOf(err: unknown): string {
  const e = err as { code?: string; message?: string };
  if (e.code?.startsWith('HPE_')) return `an answer that is not valid HTTP (${e.message ?? e.code})`;
  if (e.code === 'ECONNRESET') return 'the connection reset before a whole answer';
  return e.code ?? e.message ?? String(err);
}

export async function startProxy(opts: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(opts.target);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const base = target.pathname.replace(/\/$/, '');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  const server = createServer((req, res) => {
    const started = performance.now();
    const time = new Date();
    const requestBody = new BodyCapture();
    const responseBody = new BodyCapture();
    let answer: IncomingMessage | undefined;
    let relayedBytes = false;
    let settled = false;

    /** Reports the exchange once, however it ended; a client that went away ends it without a report. */
    const settle = (failure?: ProxyFailure) => {
      if (settled) return;
      settled = true;
      const exchange: Exchange = {
        time,
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        requestRawHeaders: req.rawHeaders,
        requestHeaders: flat(req.headers),
        requestBody: bodyView(requestBody, flat(req.headers)['content-encoding']),
        status: failure && failure.status !== 0 ? failure.status : (answer?.statusCode ?? 0),
        responseRawHeaders: answer && !failure?.beforeAnswer ? answer.rawHeaders : [],
        responseHeaders: answer && !failure?.beforeAnswer ? flat(answer.headers) : {},
        responseBody: answer
          ? bodyView(responseBody, flat(answer.headers)['content-encoding'])
          : { notChecked: 'no answer' },
        latencyMs: Math.round(performance.now() - started),
        failure,
      };
      opts.onExchange(exchange, checkExchange(exchange));
    };

    /** The proxy answers in the target's place: only while nothing of the target's answer has reached the client. */
    const fail = (status: 502 | 504, reason: string) => {
      if (settled) return;
      upstream.destroy();
      answer?.destroy();
      if (!res.headersSent) {
        const message = `card-sandbox proxy: ${reason}`;
        res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ code: status, message }));
        settle({ status, reason, beforeAnswer: true });
      } else {
        // Part of the answer is with the client already: the only honest signal left is an unfinished answer.
        res.destroy();
        settle({ status: 0, reason, beforeAnswer: false });
      }
    };

    const upstream: ClientRequest = send({
      protocol: target.protocol,
      hostname: target.hostname,
      port: target.port,
      method: req.method,
      path: base + (req.url ?? '/'),
      headers: endToEnd(req.rawHeaders, target.host),
      timeout: timeoutMs,
    });
    upstream.on('timeout', () =>
      fail(504, relayedBytes ? `the target sent nothing for ${timeoutMs} ms` : `no answer within ${timeoutMs} ms`),
    );
    upstream.on('error', (err) => fail(502, causeOf(err)));
    upstream.on('response', (a) => relay(a));

    // The client's body goes on as it comes; a client that goes away mid-request takes its exchange with it.
    req.on('data', (chunk: Buffer) => requestBody.add(chunk));
    req.pipe(upstream);
    res.on('close', () => {
      if (res.writableFinished) return;
      // The client left before the whole answer: stop reading the target; nothing to report.
      settled = true;
      upstream.destroy();
      answer?.destroy();
    });

    function relay(a: IncomingMessage): void {
      answer = a;
      const headers = endToEnd(a.rawHeaders);
      const problem = unrelayable(a, headers);
      if (problem) return fail(502, `the target answered ${problem}`);
      // The status and headers go with the first byte of the body, so a reset before it is still a clean 502.
      const start = () => {
        if (res.headersSent) return;
        res.writeHead(a.statusCode!, a.statusMessage, headers);
      };
      a.on('data', (chunk: Buffer) => {
        start();
        relayedBytes = true;
        responseBody.add(chunk);
      });
      a.on('end', () => {
        start();
        res.end();
        settle();
      });
      a.on('error', (err) => fail(502, causeOf(err)));
      a.pipe(res, { end: false });
    }
  });
  // A client that sends something node cannot parse gets node's 400; it never reaches the handler.
  server.on('clientError', (_err, socket) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
