import type { Redactor } from '../redaction/redactor.js';
import type { BodyView } from './capture.js';
import { parseBody, type Exchange } from './check.js';
import { KEY_HEADERS } from './secrets.js';

// `proxy --record FILE.jsonl`: one JSON object a line per exchange, redacted, written as each exchange completes
// (a killed proxy leaves whole lines). `card-sandbox replay` reads the same format.

interface RecordedMessage {
  /** Lower-case names; the key headers (X-API-KEY, Authorization) are left out, other secrets masked. */
  headers: Record<string, string>;
  /** Parsed JSON when the body is JSON (redacted through its structure), else redacted text; null when empty. */
  body: unknown;
  /** Why the body is not recorded (over 1 MiB, an encoding the proxy does not decode). */
  note?: string;
}

export interface RecordedExchange {
  seq: number;
  /** When the request reached the proxy (ISO, wall time). */
  time: string;
  method: string;
  /** Path and query, redacted. */
  path: string;
  request: RecordedMessage;
  status: number;
  response: RecordedMessage;
  latencyMs: number;
  /** Set when the target's answer could not be passed on: the proxy answered 502/504 itself (or cut it). */
  proxyError?: string;
}

function message(headers: readonly string[], view: BodyView, redactor: Redactor): RecordedMessage {
  const shown = redactor.headers(headers);
  for (const name of KEY_HEADERS) delete shown[name];
  if (!('text' in view)) return { headers: shown, body: null, note: `not recorded: ${view.notChecked}` };
  const parsed = parseBody(view.text, shown['content-type']);
  const body =
    parsed === undefined ? null : typeof parsed === 'string' ? redactor.text(parsed) : redactor.value(parsed);
  return { headers: shown, body };
}

/** The exchange as one recorded line's object, every part redacted with what the proxy knows so far. */
export function recordedExchange(seq: number, x: Exchange, redactor: Redactor): RecordedExchange {
  const failed = x.failure?.beforeAnswer === true;
  return {
    seq,
    time: x.time.toISOString(),
    method: x.method,
    path: redactor.url(x.url),
    request: message(x.requestRawHeaders, x.requestBody, redactor),
    status: x.status,
    response: failed
      ? { headers: {}, body: null, note: "the proxy answered in the target's place" }
      : message(x.responseRawHeaders, x.responseBody, redactor),
    latencyMs: x.latencyMs,
    ...(x.failure && { proxyError: redactor.text(x.failure.reason) }),
  };
}
