import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { RecordedExchange } from '../proxy/record.js';

// Reading a `proxy --record` file: one exchange a line, in the order the exchanges completed. Replay sends them in the
// order their requests arrived (`time`, then `seq`), which is the order the client made them. The file is streamed,
// never held whole: exchanges are put in request order within a window (concurrent requests complete a little out
// of order), so memory is bounded whatever the file's length.
//
// A recording is judged before anything is sent: what the replay could not send as recorded, or would send anywhere
// but the sandbox it replays against, is a malformed recording. A `path` is a relative path starting with one `/`
// (`//host/x`, `http://host/x` or `/\host` would take the child sandbox's key elsewhere); a method is one fetch can
// send; header names are tokens and their values bytes a header can carry.

export class RecordingError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An HTTP token (RFC 9110): what a method and a header name are made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Methods no client may send (fetch refuses them). */
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
/** A header value: bytes (Latin-1), no line break, no NUL. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** One leading slash, then printable ASCII only: no backslash, no white space, no control character. */
const RELATIVE_PATH = /^\/(?![/\\])[!-[\]-~]*$/;
/** Any origin: a path that resolves against it to another one leaves the sandbox. */
const PROBE_ORIGIN = 'http://replay.invalid';

/** Why the path cannot be sent to the sandbox alone, or undefined when it can. */
function pathProblem(path: string): string | undefined {
  if (!RELATIVE_PATH.test(path)) return 'must be a relative path starting with one "/" (no scheme, no host)';
  let url: URL;
  try {
    url = new URL(path, PROBE_ORIGIN);
  } catch {
    return 'is not a valid request path';
  }
  return url.origin === PROBE_ORIGIN ? undefined : 'would leave the sandbox';
}

function checked(value: unknown, line: number): RecordedExchange {
  const problem = (what: string) => new RecordingError(`line ${line}: ${what}`);
  if (!isObject(value)) throw problem('not a JSON object');
  for (const key of ['method', 'path', 'time'] as const) {
    if (typeof value[key] !== 'string') throw problem(`"${key}" must be a string`);
  }
  for (const key of ['seq', 'status'] as const) {
    if (typeof value[key] !== 'number') throw problem(`"${key}" must be a number`);
  }
  if (Number.isNaN(Date.parse(value.time as string))) throw problem('"time" is not a date-time');
  for (const key of ['request', 'response'] as const) {
    const m = value[key];
    if (!isObject(m) || !isObject(m.headers)) throw problem(`"${key}" must be {headers, body}`);
  }
  const method = value.method as string;
  if (!TOKEN.test(method) || FORBIDDEN_METHODS.has(method.toUpperCase())) {
    throw problem(`"method" ${JSON.stringify(method.slice(0, 32))} is not a method a replay can send`);
  }
  const why = pathProblem(value.path as string);
  if (why) throw problem(`"path" ${why}`);
  for (const [name, header] of Object.entries((value.request as { headers: Record<string, unknown> }).headers)) {
    if (!TOKEN.test(name)) throw problem(`request header name ${JSON.stringify(name.slice(0, 64))} is not a token`);
    if (typeof header !== 'string' || !HEADER_VALUE.test(header)) {
      throw problem(`request header ${name} has a value no request can carry`);
    }
  }
  return value as unknown as RecordedExchange;
}

/** Exchanges held at once to put them in request order; and the bytes of lines held (whichever comes first). */
const ORDER_WINDOW = 1024;
const ORDER_WINDOW_BYTES = 64 * 1024 * 1024;

const before = (a: RecordedExchange, b: RecordedExchange) => Date.parse(a.time) - Date.parse(b.time) || a.seq - b.seq;

/**
 * The recording's exchanges in request order, streamed from the file: a line that is not an exchange the replay can
 * send is a RecordingError naming it. An exchange that completed more than ORDER_WINDOW exchanges after a later
 * request is replayed where it was written.
 */
export async function* readExchanges(file: string): AsyncGenerator<RecordedExchange> {
  const held: { x: RecordedExchange; bytes: number }[] = [];
  let heldBytes = 0;
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const text of lines) {
    n++;
    if (text.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new RecordingError(`line ${n}: not JSON`);
    }
    const x = checked(parsed, n);
    // Kept sorted as it grows (insertion from the end: lines come nearly in order).
    let at = held.length;
    while (at > 0 && before(held[at - 1]!.x, x) > 0) at--;
    held.splice(at, 0, { x, bytes: text.length });
    heldBytes += text.length;
    while (held.length > ORDER_WINDOW || heldBytes > ORDER_WINDOW_BYTES) {
      const first = held.shift()!;
      heldBytes -= first.bytes;
      yield first.x;
    }
  }
  for (const { x } of held) yield x;
}

/** What a replay needs to know of a recording before it sends anything: it is whole and sendable, and its shape. */
export interface RecordingSummary {
  exchanges: number;
  /** The first exchange (in request order) matching each question of run.ts's `seedFor` and `webhookBefore`. */
  firstAssetList?: RecordedExchange;
  firstBinList?: RecordedExchange;
  firstWebhook?: RecordedExchange;
}

const route = (path: string) => path.split('?')[0]!;

/** Reads the whole recording once (streamed), checking every line, and keeps only what the replay's setup needs. */
export async function scanRecording(file: string): Promise<RecordingSummary> {
  const summary: RecordingSummary = { exchanges: 0 };
  for await (const x of readExchanges(file)) {
    summary.exchanges++;
    const ok = x.status === 200 && isObject(x.response.body);
    if (ok && !summary.firstAssetList && route(x.path) === '/v1/wallet/assetList') summary.firstAssetList = x;
    if (ok && !summary.firstBinList && route(x.path) === '/v1/card/binList') summary.firstBinList = x;
    if (x.status === 200 && !summary.firstWebhook && /^\/v1\/webhook(\/rotate-secret)?$/.test(route(x.path))) {
      summary.firstWebhook = x;
    }
  }
  return summary;
}

/**
 * The whole recording in request order (the CLI streams instead).
 * @internal exported for the replay property test, which compares the replay's outcomes with every recorded line
 */
export async function readRecording(file: string): Promise<RecordedExchange[]> {
  const out: RecordedExchange[] = [];
  for await (const x of readExchanges(file)) out.push(x);
  return out;
}
