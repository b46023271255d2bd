import { isIP, type LookupFunction } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { addressRange, bareHost, isPublicAddress } from './url-policy.js';

// One HTTP POST of a webhook body. Every way a receiver can misbehave (hang, reset, redirect, flood) ends in a
// bounded failure: a status or an error string, within the timeout, having read at most MAX_RESPONSE_BYTES.

/** More than a receiver needs to answer "ok"; a larger answer is a failed attempt, never buffered. */
const MAX_RESPONSE_BYTES = 4096;

export interface SendResult {
  statusCode: number | null;
  /** Null when the attempt acknowledged (2xx). */
  error: string | null;
  latencyMs: number;
}

export interface SendOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Hosted mode: connect to public unicast addresses only, checked on the address actually dialled. */
  refuseInternal: boolean;
  /** Wall-clock milliseconds, for the latency. */
  now: () => number;
}

/** A DNS lookup that fails when any resolved address is not public unicast, so a rebinding host cannot slip through. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as unknown as { address: string; family: number }[];
    const refused = list.find((a) => !isPublicAddress(a.address));
    if (refused) {
      const range = addressRange(refused.address);
      return callback(new Error(`refused: host resolves to a non-public address (${range})`), '', 0);
    }
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    callback(null, list[0].address, list[0].family);
  });
};

export function sendWebhook(opts: SendOptions): Promise<SendResult> {
  const started = opts.now();
  const done = (statusCode: number | null, error: string | null): SendResult => ({
    statusCode,
    error,
    latencyMs: Math.max(0, opts.now() - started),
  });
  const url = new URL(opts.url);
  const literal = bareHost(url.hostname);
  if (opts.refuseInternal && isIP(literal) && !isPublicAddress(literal)) {
    return Promise.resolve(done(null, `refused: url is a non-public address (${addressRange(literal)})`));
  }
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (statusCode: number | null, error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(done(statusCode, error));
    };
    const req = request(
      url,
      {
        method: 'POST',
        // No keep-alive: each attempt is its own connection, so one bad answer cannot poison the next.
        agent: false,
        headers: {
          ...opts.headers,
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(opts.body)),
          'User-Agent': 'card-issuing-sandbox-webhooks/1',
          Connection: 'close',
        },
        ...(opts.refuseInternal ? { lookup: guardedLookup } : {}),
      },
      (res: IncomingMessage) => readAnswer(res, finish),
    );
    const timer = setTimeout(() => finish(null, `timeout after ${opts.timeoutMs} ms`), opts.timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => finish(null, describeError(err)));
    req.end(opts.body);
  });
}

/** Reads the answer up to the limit; the status decides, the body only has to be small. */
function readAnswer(res: IncomingMessage, finish: (status: number | null, error: string | null) => void): void {
  const status = res.statusCode ?? 0;
  let bytes = 0;
  res.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_RESPONSE_BYTES) finish(status, `response body larger than ${MAX_RESPONSE_BYTES} bytes`);
  });
  res.on('error', (err: NodeJS.ErrnoException) => finish(status, describeError(err)));
  res.on('end', () => {
    if (status >= 200 && status < 300) return finish(status, null);
    if (status >= 300 && status < 400) return finish(status, `HTTP ${status}: redirects are not followed`);
    finish(status, `HTTP ${status}`);
  });
}

function describeError(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNRESET':
      return 'connection reset by the receiver';
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
      return 'host not found';
    default:
      // Never the body or headers: only the transport's reason.
      return err.code ? `${err.code}: ${err.message}` : err.message;
  }
}
