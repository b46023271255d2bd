import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import type { Body } from '../request-schema.js';
import { invalidField } from '../../domain/kernel/errors.js';
import { errorResponse } from '../errors.js';
import { payloadTooLarge, readBoundedBody, type BodyBounds } from '../body-bounds.js';
import { loadRequestValidators, validateBody, validateBodyInSlices } from '../request-schema.js';

const MAX_BODY_BYTES = 1024 * 1024;

/** The methods whose requests may carry a body here; on any other, a body is refused unread. */
const TAKES_BODY = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Bounds every request body before anything else runs, before any key is known. A body on a method that takes none
 * (GET, HEAD, DELETE, ...) is refused at once, unread, and its connection closed: Node would otherwise read and drop
 * it for as long as the client sends (3 GB in 5 s on `GET /healthz`). Bodies over 1 MiB get a 413 `{code: 400}`
 * before they are read whole: a declared Content-Length from the header alone, and the connection closed after the
 * answer: here, or on the APIs under `budgetedPrefixes` by `declaredLengthLimit`, mounted after their key check and
 * rate limit, so that a tenant sending oversized declarations spends its own budget and meets its held 429s like any
 * other request (bench:hosted: at once, before the key, one such tenant made 1,300 refusals a second). A chunked
 * body is read by whoever reads it, within its bounds: a JSON one chunk by chunk (`readJsonObject`), after the key; a
 * console form after its session (console/index.ts). Nothing here reads a body before a key is known: whatever
 * answer is given without reading a chunked or large body (no key, a 404) closes the connection after it, so the
 * rest is never read.
 */
export function jsonBodyLimit({ budgetedPrefixes = [] as readonly string[] } = {}): MiddlewareHandler {
  return async function jsonBodyLimit(c, next) {
    if (!TAKES_BODY.has(c.req.method)) {
      const declared = declaredLength(c);
      if (c.req.header('transfer-encoding') === undefined && (declared === undefined || declared === 0)) return next();
      // Unread, the body leaves the connection unable to carry another request: it is closed after the answer.
      c.header('Connection', 'close');
      return errorResponse(c, invalidField(`a ${c.req.method} request takes no body`));
    }
    const length = declaredLength(c);
    if (length !== undefined) {
      if (length > MAX_BODY_BYTES && !budgetedPrefixes.some((prefix) => c.req.path.startsWith(prefix))) {
        return refuseDeclared(c);
      }
      await next();
      if (length > MAX_UNREAD_BYTES) closeIfUnread(c);
      return;
    }
    await next();
    closeIfUnread(c);
  };
}

/**
 * The declared-length check of `jsonBodyLimit`, for the APIs that mount it after their key check and rate limit;
 * `maxBytes` is the operation's own bound when it takes more than 1 MiB (contracts/index.json `maxBodyBytes`).
 */
export function declaredLengthLimit(maxBytes = MAX_BODY_BYTES): MiddlewareHandler {
  return async function declaredLengthLimit(c, next) {
    const length = declaredLength(c);
    if (length !== undefined && length > maxBytes) return refuseDeclared(c, maxBytes);
    return next();
  };
}

/** The Content-Length of a body sent with one (not chunked), else undefined. */
export function declaredLength(c: Context): number | undefined {
  const length = c.req.header('content-length');
  if (length === undefined || c.req.header('transfer-encoding') !== undefined) return undefined;
  return Number.parseInt(length, 10);
}

function refuseDeclared(c: Context, maxBytes = MAX_BODY_BYTES): Response | Promise<Response> {
  // Else Node reads and drops the declared length, however large, until the request timeout.
  c.header('Connection', 'close');
  return errorResponse(c, payloadTooLarge(maxBytes));
}

/** A body larger than this that nobody read is not drained after the answer: the connection is closed instead. */
const MAX_UNREAD_BYTES = 64 * 1024;

/**
 * Closes the connection after an answer given without reading a large body (a 401, a 429, a 404): Node would
 * otherwise read and drop the whole body to keep the connection, and a tenant flooding 1 MB bodies past its rate
 * limit made the server drain its bodies at full speed (bench:hosted). A body read by `readJsonObject`, whole or up
 * to its refusal, is left alone.
 */
function closeIfUnread(c: Context): void {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && !incoming.complete && !incoming.readableDidRead) c.header('Connection', 'close');
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** Deeper than any body of this API (the deepest, a fault rule's match, is 4 levels). */
const MAX_JSON_DEPTH = 64;
/** Arrays, objects and elements; the largest legitimate body (50 fault rules) holds about 1,000. */
const MAX_JSON_VALUES = 10_000;

const BOUNDS: BodyBounds = { maxBytes: MAX_BODY_BYTES, maxDepth: MAX_JSON_DEPTH, maxValues: MAX_JSON_VALUES };

/** The bounds of an operation's body: the defaults, or what its contract entry allows (`maxBodyBytes`, `maxBodyValues`). */
export function bodyBounds(op: { maxBodyBytes?: number; maxBodyValues?: number }): BodyBounds {
  if (op.maxBodyBytes === undefined && op.maxBodyValues === undefined) return BOUNDS;
  return {
    maxBytes: op.maxBodyBytes ?? MAX_BODY_BYTES,
    maxDepth: MAX_JSON_DEPTH,
    maxValues: op.maxBodyValues ?? MAX_JSON_VALUES,
  };
}

/**
 * The body text, read within the bounds as it arrives (a refused body is never buffered whole). An accepted body
 * goes to Hono's body cache, where the request log takes it; a refused one never does, so nothing downstream
 * (the request log parses bodies past 64 KiB to redact them) ever parses what was refused for its parse cost.
 */
async function bodyText(c: Context, bounds: BodyBounds): Promise<string> {
  const cache = c.req.bodyCache as { text?: Promise<string> };
  if (cache.text) return cache.text;
  const text = await readBoundedBody(c, bounds);
  cache.text = Promise.resolve(text);
  return text;
}

// What the Sandbox-Hint of a body that is no JSON object says (the 400 and its message stay the spec's): a client that
// sends nothing, or form fields, learns that every operation here takes a JSON object, `{}` when it has no field.
const SEND_EMPTY_OBJECT = "send {} when you have no field to give (curl: -d '{}')";
const CONTENT_TYPE_HINT = `Send the body as a JSON object with Content-Type: application/json; ${SEND_EMPTY_OBJECT}.`;
const EMPTY_BODY_HINT = `The body is empty: this operation takes a JSON object; ${SEND_EMPTY_OBJECT}.`;
const NOT_JSON_HINT = `The body is not JSON: send the fields as one JSON object ({"field": value}); ${SEND_EMPTY_OBJECT}.`;
const NOT_OBJECT_HINT = `The body is JSON but not an object: send the fields as one JSON object ({"field": value}); ${SEND_EMPTY_OBJECT}.`;

/**
 * The request body as a JSON object, checked against the request schema of `operation` in contracts/ (the one source
 * of what a body may hold); wrong content type, bad JSON, a body too deep to parse cheaply, a non-object or a body
 * its schema refuses is a 400 (too large: 413). A body that is no JSON object has a hint saying to send `{}`.
 */
export async function readJsonObject(
  c: Context,
  operation: string,
  bounds = BOUNDS,
  /** Awaited between slices of checking a long body (the tenant's turn); a short body is checked at once. */
  pause?: () => Promise<void>,
): Promise<Body> {
  if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) {
    throw invalidField('Content-Type must be application/json').withHint(CONTENT_TYPE_HINT);
  }
  const text = await bodyText(c, bounds);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidField('request body is not valid JSON').withHint(text.trim() === '' ? EMPTY_BODY_HINT : NOT_JSON_HINT);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidField('request body must be a JSON object').withHint(NOT_OBJECT_HINT);
  }
  const loading = loadRequestValidators();
  if (loading) await loading;
  return pause ? validateBodyInSlices(operation, value as Body, pause) : validateBody(operation, value as Body);
}

/** For an operation whose body may be left out: no body is `{}`, a body is read and checked as `readJsonObject` does. */
export async function readOptionalJsonObject(
  c: Context,
  operation: string,
  bounds = BOUNDS,
  pause?: () => Promise<void>,
): Promise<Body> {
  // bodyText keeps what it read in Hono's cache, so readJsonObject reads the same text again without the stream.
  return (await bodyText(c, bounds)) === '' ? {} : readJsonObject(c, operation, bounds, pause);
}
