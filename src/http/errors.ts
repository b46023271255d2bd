import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DomainError, type ErrorName } from '../domain/kernel/errors.js';
import type { AppEnv } from './context.js';

/** The HTTP status of each failure that is not a plain 400 (the spec answers most failures with HTTP 400). */
const STATUS: Partial<Record<ErrorName, ContentfulStatusCode>> = {
  NOT_FOUND: 404,
  ACCOUNT_NOT_FOUND: 404,
  KEY_NOT_FOUND: 404,
  SANDBOX_NOT_FOUND: 404,
  REQUEST_NOT_FOUND: 404,
  READINESS_RUN_NOT_FOUND: 404,
  TRAFFIC_NOT_FOUND: 404,
  READINESS_SENDING_LIMIT: 429,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_MISMATCH: 409,
  IDEMPOTENCY_KEY_IN_PROGRESS: 409,
  AUTH_FAILED: 401,
  ACCOUNT_DELETED: 401,
  ADMIN_AUTH_FAILED: 401,
  ADMIN_DISABLED: 403,
  METRICS_LOOPBACK_ONLY: 403,
  RATE_LIMITED: 429,
  SYSTEM_ERROR: 500,
  STORE_UNAVAILABLE: 503,
  INSTANCE_STOPPING: 503,
};

function httpStatus(err: DomainError): ContentfulStatusCode {
  return STATUS[err.errorName] ?? 400;
}

export interface ErrorBody {
  code: number;
  message: string;
}

/** The one builder of every error body the server answers. */
export function errorBody(code: number, message: string): ErrorBody {
  return { code, message };
}

/** Where the sandbox says what it knows of a failure beyond the spec's `{code, message}`. */
const HINT_HEADER = 'Sandbox-Hint';
const MAX_HINT_CHARS = 1000;

/**
 * Sets the Sandbox-Hint of a failure: redacted by value like everything the server keeps or logs (a hint never holds a
 * secret, and would not show one if it did), on one line of printable ASCII, bounded.
 */
export function setHint(c: Context, hint: string | undefined): void {
  const redactor = (c as Context<AppEnv>).get('redactor');
  if (!hint || !redactor) return;
  const text = redactor
    .text(hint)
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, MAX_HINT_CHARS);
  c.header(HINT_HEADER, text);
}

/** The answer to a failure: its status and `{code, message}`, and its hint beside them. */
export function errorResponse(c: Context, err: DomainError, status = httpStatus(err)): Response {
  setHint(c, err.hint);
  return c.json(errorBody(err.code, err.message), status);
}
