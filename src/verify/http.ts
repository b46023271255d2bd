import { randomUUID } from 'node:crypto';
import { isKeyedWrite } from '../contracts/files.js';

/** One HTTP exchange with the target, kept whole so a failure can be shown as a curl command. */
export interface Exchange {
  method: string;
  path: string;
  requestHeaders: Record<string, string>;
  requestBody: string | undefined;
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
  ms: number;
}

export class TargetUnreachable extends Error {}

/** The target answered the API key with 401/403: every later check would fail for that one reason. */
export class KeyRefused extends Error {}

/** With --allow-mutations on this sandbox, a run needs a child sandbox; the target refused one. */
export class ChildRefused extends Error {}

export interface Target {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Send the request without X-API-KEY (or with this key instead). */
  apiKey?: string | null;
  /** A raw body, sent as is (malformed JSON checks). */
  raw?: string;
  /** Aborts the exchange under way (besides the target's timeout). */
  signal?: AbortSignal;
  /**
   * A keyed write's Idempotency-Key when `headers` gives none: by default one of its own (`randomUUID`), as a careful
   * client sends every keyed write; null sends none (a check of the spec's rule that the key is optional).
   */
  idempotencyKey?: string | null;
}

export async function call(target: Target, method: string, path: string, opts: CallOptions = {}): Promise<Exchange> {
  const requestHeaders: Record<string, string> = { ...opts.headers };
  const hasHeader = (name: string) => Object.keys(requestHeaders).some((h) => h.toLowerCase() === name);
  if (opts.idempotencyKey !== null && !hasHeader('idempotency-key') && isKeyedWrite(method, path)) {
    requestHeaders['Idempotency-Key'] = opts.idempotencyKey ?? randomUUID();
  }
  const key = opts.apiKey === undefined ? target.apiKey : opts.apiKey;
  if (key !== null) requestHeaders['X-API-KEY'] = key;
  let requestBody: string | undefined;
  if (opts.raw !== undefined) requestBody = opts.raw;
  else if (method !== 'GET' && method !== 'DELETE') requestBody = JSON.stringify(opts.body ?? {});
  if (requestBody !== undefined && !hasHeader('content-type')) {
    requestHeaders['Content-Type'] = 'application/json';
  }
  const started = performance.now();
  let res: Response;
  try {
    res = await fetch(new URL(path, target.baseUrl), {
      method,
      headers: requestHeaders,
      body: requestBody,
      redirect: 'manual',
      signal: opts.signal
        ? AbortSignal.any([AbortSignal.timeout(target.timeoutMs), opts.signal])
        : AbortSignal.timeout(target.timeoutMs),
    });
  } catch (err) {
    throw new TargetUnreachable(`${method} ${new URL(path, target.baseUrl)}: ${networkCause(err)}`);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return {
    method,
    path,
    requestHeaders,
    requestBody,
    status: res.status,
    headers: res.headers,
    text,
    json,
    ms: performance.now() - started,
  };
}

/** The useful part of fetch's "fetch failed": ECONNREFUSED, ENOTFOUND, a timeout. */
function networkCause(err: unknown): string {
  const e = err as {
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string; errors?: { code?: string }[] };
  };
  if (e.name === 'TimeoutError') return 'no answer within the timeout';
  return e.cause?.code ?? e.cause?.errors?.[0]?.code ?? e.cause?.message ?? e.message ?? String(err);
}

const SECRET_HEADERS = new Set(['x-api-key', 'authorization']);

/** The exchange's request as a curl command a partner can paste; keys are redacted. */
export function toCurl(baseUrl: string, ex: Pick<Exchange, 'method' | 'path' | 'requestHeaders' | 'requestBody'>) {
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const parts = ['curl', '-si', '-X', ex.method, quote(new URL(ex.path, baseUrl).toString())];
  for (const [name, value] of Object.entries(ex.requestHeaders)) {
    const shown = SECRET_HEADERS.has(name.toLowerCase()) ? '$API_KEY' : value;
    parts.push('-H', SECRET_HEADERS.has(name.toLowerCase()) ? `"${name}: ${shown}"` : quote(`${name}: ${shown}`));
  }
  if (ex.requestBody !== undefined) parts.push('-d', quote(ex.requestBody));
  return parts.join(' ');
}
