import type { Redactor } from '../redaction/redactor.js';
import type { RecordRow } from '../store/request-log.js';
import type { CapturedRequest } from './captured-request.js';

// A captured request made a row of the request log: redacted by value (src/redaction) in its path, request id, every
// header and both bodies, with its size in bytes (what the tenant's storage bound counts).

/** Stored body text is cut here (after redaction) and marked truncated. */
export const MAX_BODY_CHARS = 64 * 1024;

export function toRow(r: CapturedRequest, server: Redactor): RecordRow {
  const sent = r.requestHeaders.split('\n');
  // The caller's own key is masked by value wherever it shows up in the record, whatever its shape.
  const redactor = server.with([headerValue(sent, 'x-api-key')]);
  const request = recordedBody(r.requestBody, true, redactor);
  const response = recordedBody(r.responseBody, false, redactor);
  const requestHeaders = redactor.headers(sent);
  const responseHeaders = redactor.headers(r.responseHeaders.split('\n'));
  const requestId = redactor.text(r.requestId);
  const path = redactor.url(r.path);
  const idempotencyKey = requestHeaders['idempotency-key'] ?? null;
  // Already redacted with the answer's headers: a hint never holds a secret, and would not be kept in clear if it did.
  const hint = responseHeaders['sandbox-hint'] ?? null;
  const detail = `{"request":${messageJson(requestHeaders, request)},"response":${messageJson(responseHeaders, response)}}`;
  return {
    account_id: r.accountId,
    bytes:
      Buffer.byteLength(detail) +
      Buffer.byteLength(path) +
      Buffer.byteLength(requestId) +
      (idempotencyKey === null ? 0 : Buffer.byteLength(idempotencyKey)) +
      (hint === null ? 0 : Buffer.byteLength(hint)) +
      (r.fault === null ? 0 : r.fault.length),
    request_id: requestId,
    at_ms: r.atMs,
    method: r.method,
    path,
    status: r.status,
    code: response.code,
    latency_ms: r.latencyMs,
    key_id: r.keyId,
    idempotency_key: idempotencyKey,
    replayed: responseHeaders['idempotent-replayed'] === 'true' ? 1 : 0,
    detail,
    fault: r.fault,
    hint,
    source: r.fromConsole ? 'console' : 'api',
  };
}

function headerValue(list: readonly string[], lowerName: string): string | undefined {
  for (let i = 0; i + 1 < list.length; i += 2) if (list[i]!.toLowerCase() === lowerName) return list[i + 1];
  return undefined;
}

interface BodyText {
  /** JSON text of the recorded body value, redacted. */
  json: string;
  truncated: boolean;
  /** The top-level `code` of a JSON object body. */
  code: number | null;
}

const note = (text: string): BodyText => ({ json: JSON.stringify(text), truncated: false, code: null });
/** Our answers put `code` first when they have one (`{...OK, ...}`, the error body). */
const LEADING_CODE = /^\{"code":(-?\d+)[,}]/;

/**
 * A body as it is stored. Text in which the redaction can find nothing is kept as it came (the answer's own JSON, or
 * a request body once it parsed); the rest is parsed, redacted through its structure and serialised again (a JSON
 * escape such as `\u0063vv` can spell a secret name in disguise, so such text is always parsed). Bodies past 64 KiB
 * are cut after redaction, and kept as a string.
 */
function recordedBody(text: string | null | undefined, validate: boolean, redactor: Redactor): BodyText {
  if (text === null || text === '') return { json: 'null', truncated: false, code: null };
  if (text === undefined) return note('[body not read: not recorded]');
  const leading = LEADING_CODE.exec(text);
  let code = leading ? Number(leading[1]) : null;
  let json = text;
  const redact = text.length > MAX_BODY_CHARS || text.includes('\\u') || redactor.mayHold(text);
  if (validate || redact) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // Without JSON structure a CVV or an OTP cannot be found by its field name, so nothing of it is kept.
      return note(`[not JSON, ${text.length} characters: not recorded]`);
    }
    if (
      code === null &&
      typeof value === 'object' &&
      value !== null &&
      Number.isInteger((value as { code?: unknown }).code)
    ) {
      code = (value as { code: number }).code;
    }
    if (redact) {
      const budget = { left: MAX_BODY_CHARS };
      json = JSON.stringify(redactor.value(keepWithin(value, budget)));
      if (budget.left < 0) return { json: JSON.stringify(json.slice(0, MAX_BODY_CHARS)), truncated: true, code };
    }
  }
  if (json.length <= MAX_BODY_CHARS) return { json, truncated: false, code };
  return { json: JSON.stringify(json.slice(0, MAX_BODY_CHARS)), truncated: true, code };
}

const TRAILING_DIGITS = /[\d\s._/+-]+$/;

/**
 * The parsed body with its strings (keys too) cut once the record could hold no more: what lies past MAX_BODY_CHARS is
 * never stored, so it is never redacted either (redacting a megabyte of short digit groups took a quarter of a second
 * of the server's one thread). A string cut in its middle also loses its trailing digits and separators, so no part of
 * a card number is kept. `budget.left` below 0 says something was cut.
 */
function keepWithin(value: unknown, budget: { left: number }, depth = 0): unknown {
  if (typeof value === 'string') {
    if (value.length <= budget.left) {
      budget.left -= value.length;
      return value;
    }
    const kept = budget.left > 0 ? value.slice(0, budget.left).replace(TRAILING_DIGITS, '') : '';
    budget.left = -1;
    return kept;
  }
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (Array.isArray(value)) return value.map((v) => keepWithin(v, budget, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[keepWithin(k, budget) as string] = keepWithin(v, budget, depth + 1);
  return out;
}

function messageJson(headers: Record<string, string>, body: BodyText): string {
  return `{"headers":${JSON.stringify(headers)},"body":${body.json},"truncated":${body.truncated}}`;
}
