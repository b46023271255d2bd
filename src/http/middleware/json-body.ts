import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Body } from '../validate.js';
import { DomainError, invalidField } from '../../domain/errors.js';
import { errorResponse } from '../errors.js';

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

/** The request body as a JSON object; wrong content type, bad JSON or a non-object is a 400. */
export async function readJsonObject(c: Context): Promise<Body> {
  if (!JSON_TYPE.test(c.req.header('content-type') ?? '')) throw invalidField('Content-Type must be application/json');
  const text = await c.req.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidField('request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidField('request body must be a JSON object');
  }
  return value as Body;
}
