import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** The error catalogue of the spec: name -> code, HTTP status and the default message. */
export const ERRORS = {
  ILLEGAL_PARAMETER: { code: 400, status: 400, message: 'Illegal parameter' },
  NOT_FOUND: { code: 404, status: 404, message: 'Not found' },
  PAYLOAD_TOO_LARGE: { code: 400, status: 413, message: 'Request body is larger than 1 MiB' },
  ADDRESS_ERROR: { code: 2000, status: 400, message: 'No deposit address configured for this account' },
  ASSET_NOT_FOUND: { code: 3000, status: 400, message: 'No balance for the requested currency' },
  ASSET_NOT_ENOUGH: {
    code: 3001,
    status: 400,
    message: 'Your balance is too low for this action. Please add funds to your wallet and try again.',
  },
  CARD_NOT_FOUND: { code: 4001, status: 400, message: 'Card not found' },
  BIN_NOT_FOUND: { code: 4004, status: 400, message: 'Card BIN not found' },
  BIN_DISABLED: { code: 4005, status: 400, message: 'Card BIN is disabled' },
  REJECTED_HAVING_PENDING_ORDERS: {
    code: 4007,
    status: 400,
    message: 'A conflicting operation is pending on this card',
  },
  CARD_IS_DELETING: { code: 4008, status: 400, message: 'Card is being cancelled' },
  CARD_OUT_OF_INVENTORY: { code: 4009, status: 400, message: 'No card inventory available, contact support' },
  CARD_PROVISIONING: { code: 4010, status: 400, message: 'Card provisioning in progress, retry shortly' },
  DEPOSIT_AMOUNT_TOO_SMALL: {
    code: 8001,
    status: 400,
    message: 'Amount is below the minimum deposit or too small to cover the fees',
  },
  IDEMPOTENCY_KEY_REQUIRED: { code: 4210, status: 400, message: 'Idempotency-Key header is required' },
  IDEMPOTENCY_KEY_MISMATCH: {
    code: 4211,
    status: 409,
    message: 'Idempotency-Key was already used with a different request',
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    code: 4212,
    status: 409,
    message: 'A request with this Idempotency-Key is already in progress',
  },
  AUTH_FAILED: { code: 11002, status: 401, message: 'Invalid or revoked API key' },
  ADMIN_AUTH_FAILED: { code: 401, status: 401, message: 'Invalid operator token' },
  ADMIN_DISABLED: { code: 403, status: 403, message: 'Operator API is disabled: set SANDBOX_ADMIN_TOKEN' },
  RATE_LIMITED: { code: 429, status: 429, message: 'Too many requests' },
  SYSTEM_ERROR: { code: 9999, status: 500, message: 'Unexpected server error, retry later' },
} as const satisfies Record<string, { code: number; status: ContentfulStatusCode; message: string }>;

export type ErrorName = keyof typeof ERRORS;

/** A typed error value: thrown by the domain, turned into `{code, message}` only by `errorBody`. */
export class ApiError extends Error {
  readonly code: number;
  readonly status: ContentfulStatusCode;

  constructor(
    readonly errorName: ErrorName,
    message?: string,
  ) {
    const entry = ERRORS[errorName];
    super(message ?? entry.message);
    this.code = entry.code;
    this.status = entry.status;
  }
}

/** Shorthand for the commonest error: a 400 naming the offending field or state. */
export function illegal(message: string): ApiError {
  return new ApiError('ILLEGAL_PARAMETER', message);
}

/** The one builder of every error body. */
export function errorBody(err: ApiError): { code: number; message: string } {
  return { code: err.code, message: err.message };
}
