import { contractFor, validateRequest, validateResponse, type ContractViolation } from '../contracts/registry.js';
import type { BodyView } from './capture.js';

// The judgement of one exchange seen by the proxy: the request against its contract, the answer against the
// contract of its operation and status, and the headers the contracts require. Pure: no I/O.

/** An answer the proxy could not pass on: it answered 502/504 itself, or (status 0) cut an answer under way. */
export interface ProxyFailure {
  status: 502 | 504 | 0;
  reason: string;
  /** True when nothing of the target's answer reached the client (the proxy's own answer replaced it). */
  beforeAnswer: boolean;
}

export interface Exchange {
  /** When the request reached the proxy. */
  time: Date;
  method: string;
  /** Path and query as sent. */
  url: string;
  requestRawHeaders: string[];
  requestHeaders: Record<string, string | undefined>;
  requestBody: BodyView;
  /** The status the client got (the proxy's own 502/504 when it answered in the target's place). */
  status: number;
  responseRawHeaders: string[];
  responseHeaders: Record<string, string | undefined>;
  responseBody: BodyView;
  latencyMs: number;
  failure?: ProxyFailure;
}

export interface Violation {
  /** `POST /v1/card/create`, or the method and path when no contract has it. */
  operation: string;
  direction: 'request' | 'response';
  /** JSON pointer into the body (`/cardList/0/cardStatus`), or `header:Name` / `status`. */
  pointer: string;
  expected: string;
  seen: string;
  requestId: string;
}

/** Printable ASCII, not only spaces, at most 255: a key the server echoes (contracts: Idempotency-Key). */
const WELL_FORMED_KEY = /^(?=.*[\x21-\x7e])[\x20-\x7e]{1,255}$/;

/** A body as the checks judge it: parsed JSON when it is JSON, else its text. */
export function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === '') return undefined;
  if (contentType !== undefined && !/json/i.test(contentType)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The value at a JSON pointer, as short readable text. */
export function at(value: unknown, pointer: string): string {
  let node: unknown = value;
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, part)) return '(absent)';
    node = (node as Record<string, unknown>)[part];
  }
  const text = node === undefined ? '(absent)' : JSON.stringify(node);
  return text.length > 200 ? text.slice(0, 197) + '...' : text;
}

const list = (v: unknown) => (Array.isArray(v) ? v.map((x) => JSON.stringify(x)).join(', ') : JSON.stringify(v));

/** What the contract says, in words, from the failing keyword. */
function expectation(v: ContractViolation): string {
  const p = v.params ?? {};
  switch (v.keyword) {
    case 'type':
      return `type ${list(p.type)}`;
    case 'enum':
      return `one of ${list(p.allowedValues)}`;
    case 'const':
      return `exactly ${JSON.stringify(p.allowedValue)}`;
    case 'required':
      return 'present (required)';
    case 'unevaluatedProperties':
    case 'additionalProperties':
      return 'no such property';
    case 'pattern':
      return `text matching ${String(p.pattern)}`;
    case 'format':
      return `format ${String(p.format)}`;
    default:
      return v.message;
  }
}

function pointerOf(v: ContractViolation): string {
  const p = v.params ?? {};
  const child = v.keyword === 'required' ? p.missingProperty : (p.unevaluatedProperty ?? p.additionalProperty);
  const tail = child === undefined ? '' : '/' + String(child).replace(/~/g, '~0').replace(/\//g, '~1');
  return v.instancePath + tail || '/';
}

const isStatusFinding = (v: ContractViolation) =>
  v.keyword === undefined && /^HTTP \d+ is not a status/.test(v.message);

function fromSchema(
  violations: ContractViolation[],
  body: unknown,
  base: Omit<Violation, 'pointer' | 'expected' | 'seen'>,
): Violation[] {
  return violations.map((v) => {
    if (v.keyword === undefined) {
      // A finding about the exchange itself (an unlisted status, a body where none belongs).
      const isStatus = isStatusFinding(v);
      return {
        ...base,
        pointer: isStatus ? 'status' : '/',
        expected: v.message,
        seen: isStatus ? v.message.split(' ')[1]! : at(body, ''),
      };
    }
    const pointer = pointerOf(v);
    return { ...base, pointer, expected: expectation(v), seen: at(body, pointer === '/' ? '' : pointer) };
  });
}

/** Every way this exchange departs from the contracts; [] for an exchange outside them (not judged). */
export function checkExchange(x: Exchange): Violation[] {
  const path = x.url.split('?')[0]!;
  const contract = contractFor(x.method, path);
  const requestId = x.responseHeaders['x-request-id'] ?? x.requestHeaders['x-request-id'] ?? '(none)';
  const operation = contract?.key ?? `${x.method} ${path}`;
  // An answer the proxy could not pass on is a violation wherever it happens: the client got no answer of the API.
  if (x.failure) {
    return [
      {
        operation,
        direction: 'response',
        pointer: 'status',
        expected: 'an answer the proxy can pass on',
        seen: x.failure.reason,
        requestId,
      },
    ];
  }
  if (!contract) return [];
  const out: Violation[] = [];

  // A request the contract refuses is a violation when the target accepted it (the target is more lenient than
  // its contract, so a partner passes here and fails elsewhere); refused with a 4xx, it is what the contract says.
  if ('text' in x.requestBody && x.status >= 200 && x.status < 300) {
    const requestBody = parseBody(x.requestBody.text, x.requestHeaders['content-type']);
    out.push(
      ...fromSchema(validateRequest(x.method, path, requestBody), requestBody, {
        operation,
        direction: 'request',
        requestId,
      }),
    );
  }

  // A body that was not kept (over 1 MiB) is not judged; its status still is.
  const view = x.responseBody;
  const kept = 'text' in view;
  const responseBody = 'text' in view ? parseBody(view.text, x.responseHeaders['content-type']) : undefined;
  const found = validateResponse(x.method, path, x.status, responseBody);
  out.push(
    ...fromSchema(kept ? found : found.filter(isStatusFinding), responseBody, {
      operation,
      direction: 'response',
      requestId,
    }),
  );

  const header = (name: string, expected: string, seen: string) =>
    out.push({ operation, direction: 'response', pointer: `header:${name}`, expected, seen, requestId });
  if (x.responseHeaders['x-request-id'] === undefined) header('X-Request-Id', 'present on every answer', '(absent)');
  if (x.status === 429 && x.responseHeaders['retry-after'] === undefined)
    header('Retry-After', 'present on a 429', '(absent)');
  const key = x.requestHeaders['idempotency-key'];
  if (contract.operation.idempotent && key !== undefined && WELL_FORMED_KEY.test(key)) {
    const echoed = x.responseHeaders['idempotency-key'];
    if (echoed !== key)
      header('Idempotency-Key', `the request's key echoed: ${JSON.stringify(key)}`, echoed ?? '(absent)');
  }
  const replayed = x.responseHeaders['idempotent-replayed'];
  if (replayed !== undefined && replayed !== 'true') header('Idempotent-Replayed', '"true" or absent', replayed);
  return out;
}
