import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DomainError, type ErrorName } from '../domain/errors.js';

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
  RATE_LIMITED: 429,
  SYSTEM_ERROR: 500,
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

/** The answer to a failure: its status and `{code, message}`. */
export function errorResponse(c: Context, err: DomainError, status = httpStatus(err)): Response {
  return c.json(errorBody(err.code, err.message), status);
}
