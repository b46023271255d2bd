import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Body } from '../validate.js';
import { DomainError, invalidField } from '../../domain/errors.js';
import { errorResponse } from '../errors.js';
import { validateRequestBody } from '../request-schema.js';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Refuses bodies over 1 MiB with 413 `{code: 400}` before they are read whole. A declared Content-Length is
 * checked from the header alone; only a chunked body goes through Hono's streaming limit, because touching
 * `c.req.raw.body` turns @hono/node-server's light request into a full web Request (an eighth of a read's CPU).
 */
export function jsonBodyLimit(): MiddlewareHandler {
  const tooLarge = (c: Context) => errorResponse(c, new DomainError('PAYLOAD_TOO_LARGE'));
  const streaming = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge });
  return async function jsonBodyLimit(c, next) {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const length = c.req.header('content-length');
    if (length !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number.parseInt(length, 10) > MAX_BODY_BYTES) return tooLarge(c);
      return next();
    }
    return streaming(c, next);
  };
}

const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** Deeper than any body of this API (the deepest, a fault rule's match, is 4 levels). */
export const MAX_JSON_DEPTH = 64;
/** Arrays, objects and elements; the largest legitimate body (50 fault rules) holds about 1,000. */
export const MAX_JSON_VALUES = 10_000;

const [QUOTE, BACKSLASH, COMMA, OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE] = [...'"\\,[]{}'].map((c) =>
  c.charCodeAt(0),
);

/**
 * Why a JSON text is too costly to parse, or undefined. JSON.parse of 1 MiB of nested arrays holds the event loop
 * for about a second (and 1 MiB of `[],` for a tenth), stalling every tenant; this scan is linear, a few
 * milliseconds at worst, and stops at the first bracket over a bound. It counts brackets and commas outside
 * strings; malformed text is left to JSON.parse to refuse.
 */
export function jsonCostProblem(text: string): string | undefined {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === BACKSLASH) i++;
      else if (ch === QUOTE) inString = false;
    } else if (ch === QUOTE) {
      inString = true;
    } else if (ch === OPEN_BRACKET || ch === OPEN_BRACE) {
      if (++depth > MAX_JSON_DEPTH) return `request body nests deeper than ${MAX_JSON_DEPTH} levels`;
      if (++values > MAX_JSON_VALUES) return `request body holds more than ${MAX_JSON_VALUES} values`;
    } else if (ch === CLOSE_BRACKET || ch === CLOSE_BRACE) {
      depth--;
    } else if (ch === COMMA) {
      if (++values > MAX_JSON_VALUES) return `request body holds more than ${MAX_JSON_VALUES} values`;
    }
  }
  return undefined;
}

/**
 * The request body as a JSON object, checked against its operation's request schema in contracts/ (the one source of
 * what a body may hold); wrong content type, bad JSON, a body too deep or too large to parse cheaply, a non-object or
 * a body its schema refuses is a 400.
 */
export async function readJsonObject(c: Context): Promise<Body> {
  if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) throw invalidField('Content-Type must be application/json');
  const text = await c.req.text();
  const tooCostly = jsonCostProblem(text);
  if (tooCostly !== undefined) throw invalidField(tooCostly);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidField('request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidField('request body must be a JSON object');
  }
  return validateRequestBody(c.req.method, c.req.path, value as Body);
}

/** For an operation whose body may be left out: no body is `{}`, a body is read and checked as `readJsonObject` does. */
export async function readOptionalJsonObject(c: Context): Promise<Body> {
  // Hono keeps the text it read, so readJsonObject reads the same body again without the stream.
  return (await c.req.text()) === '' ? {} : readJsonObject(c);
}
