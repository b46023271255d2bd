import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { checkExchange, type Exchange, type Violation } from './check.js';

// The validating proxy's transport: each request goes to the target byte for byte (method, path, query, headers,
// body), and the target's answer comes back byte for byte (status, headers, body, compression untouched). The
// judgement runs on copies after the answer is on its way, so the proxy never changes or delays what it relays.

export interface ProxyOptions {
  target: string;
  port?: number;
  host?: string;
  /** Called once per relayed exchange with its violations ([] when it conforms or has no contract). */
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

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

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

/** A text view of a body for judging; a compressed body is judged only by its status and headers. */
function textOf(body: Buffer, headers: IncomingMessage['headers']): string {
  const encoding = headers['content-encoding'];
  return encoding && encoding !== 'identity' ? '' : body.toString('utf8');
}

export async function startProxy(opts: ProxyOptions): Promise<RunningProxy> {
  const target = new URL(opts.target);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const base = target.pathname.replace(/\/$/, '');

  const server = createServer(async (req, res) => {
    let requestBody: Buffer;
    try {
      requestBody = await readAll(req);
    } catch {
      res.destroy();
      return;
    }
    const upstream = send(
      {
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method: req.method,
        path: base + (req.url ?? '/'),
        headers: endToEnd(req.rawHeaders, target.host),
      },
      async (answer) => {
        let responseBody: Buffer;
        try {
          responseBody = await readAll(answer);
        } catch {
          res.destroy();
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
        res.end(responseBody);
        const requestHeaders = flat(req.headers);
        const exchange: Exchange = {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          requestHeaders,
          requestBody: textOf(requestBody, req.headers),
          status: answer.statusCode ?? 0,
          responseHeaders: flat(answer.headers),
          responseBody: textOf(responseBody, answer.headers),
        };
        opts.onExchange(exchange, checkExchange(exchange));
      },
    );
    // The target could not be reached or dropped the connection: the client sees the same (no made-up answer).
    upstream.on('error', () => res.destroy());
    upstream.end(requestBody);
  });

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
