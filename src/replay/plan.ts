import type { RecordedExchange } from '../proxy/record.js';
import { isRedacted } from './compare.js';
import type { IdMap } from './ids.js';

// What the replay sends for one recorded exchange, or why it cannot send it faithfully (then the exchange is
// reported as skipped, with the reason, and never compared).

interface PlannedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The body as sent; undefined for none. */
  raw: string | undefined;
}

export type Plan = { send: PlannedRequest } | { skip: string };

/**
 * Request headers the replay never copies, in any letter case (header names are case-insensitive): its own key goes
 * instead, and the transport sets its own framing. A recorded `X-Api-Key` and `Host` were once copied beside the
 * replay's own, and a `Transfer-Encoding` made fetch refuse the request, which ended the replay (exit 3).
 */
const NOT_COPIED = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'accept-encoding',
  'x-api-key',
  'authorization',
  'proxy-authorization',
  'cookie',
]);

/** The first redacted value in a recorded request body: the replay would send a placeholder where a value was. */
function redactedAt(value: unknown, pointer = ''): string | undefined {
  if (isRedacted(value)) return pointer || '/';
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const found = redactedAt(
        v,
        `${pointer}/${Array.isArray(value) ? k : k.replace(/~/g, '~0').replace(/\//g, '~1')}`,
      );
      if (found) return found;
    }
  }
  return undefined;
}

const isSuccess = (x: RecordedExchange) => x.status >= 200 && x.status < 300;

export function planRequest(x: RecordedExchange, ids: IdMap): Plan {
  const route = x.path.split('?')[0]!;
  if (x.proxyError) return { skip: `the proxy could not pass the target's answer on (${x.proxyError})` };
  if (route.startsWith('/admin/')) return { skip: 'the operator API is not replayed (it needs the admin token)' };
  if (route.startsWith('/sandbox/v1/sandboxes/')) {
    return { skip: 'the replay runs in a child sandbox, which cannot manage sandboxes' };
  }
  if (x.request.note) return { skip: `the request body was ${x.request.note}` };
  if (x.path.includes('[REDACTED]') || /\*{4}/.test(x.path))
    return { skip: 'the recorded path holds a redacted value' };
  const redacted = redactedAt(x.request.body);
  if (redacted) return { skip: `the recorded request holds a redacted value at ${redacted}` };
  const missing = ids.unresolved(x.request.body, x.path, isSuccess(x));
  if (missing) {
    return {
      skip:
        missing.why === 'created'
          ? `it needs ${missing.value} (${missing.pointer}), which the recording created and the replay did not`
          : `it refers to ${missing.value} (${missing.pointer}), which existed before the recording began`,
    };
  }

  let body = ids.substitute(x.request.body);
  // The replay owns the child's clock (frozen, advanced by the recorded gaps): a recorded switch of mode is dropped.
  if (route === '/sandbox/v1/clock' && body !== null && typeof body === 'object' && 'mode' in body) {
    const { mode: _mode, ...rest } = body as Record<string, unknown>;
    body = rest;
  }
  // The child's webhook is configured as recorded but disabled: it must never deliver to the partner's receiver.
  if (x.method === 'PUT' && route === '/v1/webhook' && body !== null && typeof body === 'object') {
    body = { ...body, enabled: false };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(x.request.headers)) {
    if (NOT_COPIED.has(name.toLowerCase()) || isRedacted(value)) continue;
    headers[name] = value;
  }
  // GET and HEAD carry no body (fetch refuses one): a body recorded with them is left off, as the sandbox ignores it.
  const bodyless = x.method === 'GET' || x.method === 'HEAD';
  const raw =
    bodyless || body === null || body === undefined
      ? undefined
      : typeof body === 'string'
        ? body
        : JSON.stringify(body);
  return { send: { method: x.method, path: ids.substitutePath(x.path), headers, raw } };
}
