// Every failure the sandbox can answer, by name: its spec code and default message. The HTTP status of each
// name is the HTTP layer's business (src/http/errors.ts); nothing here knows HTTP.

const INVALID = 400;

/** The error catalogue: name -> spec code and default message. The first entry of a code gives its message. */
const ERRORS = {
  ILLEGAL_PARAMETER: { code: INVALID, message: 'Illegal parameter' },
  NOT_FOUND: { code: 404, message: 'Not found' },
  PAYLOAD_TOO_LARGE: { code: INVALID, message: 'Request body is larger than 1 MiB' },
  ADDRESS_ERROR: { code: 2000, message: 'No deposit address configured for this account' },
  ASSET_NOT_FOUND: { code: 3000, message: 'No balance for the requested currency' },
  ASSET_NOT_ENOUGH: {
    code: 3001,
    message: 'Your balance is too low for this action. Please add funds to your wallet and try again.',
  },
  CARD_NOT_FOUND: { code: 4001, message: 'Card not found' },
  BIN_NOT_FOUND: { code: 4004, message: 'Card BIN not found' },
  BIN_DISABLED: { code: 4005, message: 'Card BIN is disabled' },
  REJECTED_HAVING_PENDING_ORDERS: { code: 4007, message: 'A conflicting operation is pending on this card' },
  CARD_IS_DELETING: { code: 4008, message: 'Card is being cancelled' },
  CARD_OUT_OF_INVENTORY: { code: 4009, message: 'No card inventory available, contact support' },
  CARD_PROVISIONING: { code: 4010, message: 'Card provisioning in progress, retry shortly' },
  DEPOSIT_AMOUNT_TOO_SMALL: {
    code: 8001,
    message: 'Amount is below the minimum deposit or too small to cover the fees',
  },
  IDEMPOTENCY_KEY_REQUIRED: { code: 4210, message: 'Idempotency-Key header is required' },
  IDEMPOTENCY_KEY_MISMATCH: { code: 4211, message: 'Idempotency-Key was already used with a different request' },
  IDEMPOTENCY_KEY_IN_PROGRESS: { code: 4212, message: 'A request with this Idempotency-Key is already in progress' },
  AUTH_FAILED: { code: 11002, message: 'Invalid or revoked API key' },
  /** A request of a child sandbox deleted while it ran: its key stopped working mid-request. */
  ACCOUNT_DELETED: { code: 11002, message: 'Invalid or revoked API key: its sandbox was deleted' },
  ADMIN_AUTH_FAILED: { code: 401, message: 'Invalid operator token' },
  ADMIN_DISABLED: { code: 403, message: 'Operator API is disabled: set SANDBOX_ADMIN_TOKEN' },
  METRICS_LOOPBACK_ONLY: {
    code: 403,
    message: 'GET /metrics answers loopback clients only in local mode: send Authorization: Bearer <admin token>',
  },
  RATE_LIMITED: { code: 429, message: 'Too many requests' },
  SYSTEM_ERROR: { code: 9999, message: 'Unexpected server error, retry later' },
  // The store cannot be reached (PostgreSQL lost while serving): the request changed nothing, a retry may succeed.
  STORE_UNAVAILABLE: { code: 503, message: 'The sandbox cannot reach its database; retry after the Retry-After delay' },
  // A request a `hold` fault kept when its instance began to stop: it did not run, and its key is free for a retry.
  INSTANCE_STOPPING: {
    code: 503,
    message: 'This sandbox instance is stopping and the request did not run; retry it (another instance will answer)',
  },
  // The sandbox's own failures (docs/design.md), beyond the spec's catalogue: each a 400 with its exact text.
  ACCOUNT_NOT_FOUND: { code: 404, message: 'account not found' },
  KEY_NOT_FOUND: { code: 404, message: 'key not found' },
  CARD_CANCELLED: { code: INVALID, message: 'card is cancelled' },
  BALANCE_LIMIT_EXCEEDED: {
    code: INVALID,
    message:
      'amount would take the USDT entered into this account (seeded, sent on chain with pending included, or ' +
      'refunded with no purchase) past 5000000000, the sandbox limit; reset the account',
  },
  /** Detail: which balance, and the bound it would pass. */
  BALANCE_OUT_OF_BOUNDS: {
    code: INVALID,
    message: 'amount would take a balance past 5000000000 either way, the most any balance of the sandbox holds',
  },
  TRANSACTION_NOT_FOUND: { code: INVALID, message: 'transaction not found' },
  /** Detail: `transaction is <status>: only a PENDING transaction can be <cleared|reversed>`. */
  TRANSACTION_NOT_PENDING: { code: INVALID, message: 'only a PENDING transaction can be settled' },
  /** Detail: `transaction is <status>: only a CLEARED purchase can be refunded`. */
  TRANSACTION_NOT_REFUNDABLE: { code: INVALID, message: 'only a CLEARED purchase can be refunded' },
  TRANSACTION_FULLY_REFUNDED: { code: INVALID, message: 'transaction is already fully refunded' },
  /** Detail: the most that may be refunded. */
  REFUND_EXCEEDS_REMAINING: { code: INVALID, message: 'amount exceeds what remains refundable' },
  /** Detail: the hold. */
  PARTIAL_CLEARING_EXCEEDS_HOLD: { code: INVALID, message: "amount exceeds the authorisation's hold" },
  /** Detail: the hold. */
  REVERSAL_EXCEEDS_HOLD: { code: INVALID, message: "amount exceeds the authorisation's hold" },
  CLOCK_LIMIT: {
    code: INVALID,
    message:
      'advanceSeconds would take the account clock past 9000-01-01T00:00:00.000Z, the sandbox limit ' +
      '(card ids and expiry dates are written with four-digit years)',
  },
  TX_ID_ON_CHAIN: { code: INVALID, message: 'txId is already on chain' },
  DEPOSIT_ADDRESS_IN_USE: {
    code: INVALID,
    message: 'depositAddress is already the deposit address of another account: each account needs its own',
  },
  CHALLENGE_NOT_FOUND: { code: INVALID, message: 'challenge not found' },
  EVENT_NOT_FOUND: { code: INVALID, message: 'eventId: no such event for this account' },
  WEBHOOK_NOT_CONFIGURED: { code: INVALID, message: 'no webhook is configured: PUT /v1/webhook first' },
  WEBHOOK_DISABLED: { code: INVALID, message: 'the webhook is disabled: enable it to deliver' },
  DELIVERIES_OFF: {
    code: INVALID,
    message: 'this child sandbox delivers nothing (it was created with deliveries: false)',
  },
  BIN_DIGITS_FIXED: { code: INVALID, message: 'bin cannot change once cards are issued on this BIN' },
  // Developer tools (docs/design.md section 12).
  SANDBOX_NOT_FOUND: { code: 404, message: 'no such sandbox' },
  CHILD_CANNOT_CREATE_SANDBOX: {
    code: INVALID,
    message: 'a child sandbox cannot create sandboxes: call sandboxes/create with its parent account key',
  },
  SANDBOX_LIMIT_REACHED: {
    code: INVALID,
    message: 'this account already has 100 live sandboxes, the limit: delete some with sandboxes/delete',
  },
  REQUEST_NOT_FOUND: { code: 404, message: 'no request with this requestId in the request log of this account' },
  REQUEST_LOG_OFF: { code: INVALID, message: 'the request log is turned off on this server (--request-log off)' },
  // Traffic runs (docs/design.md section 15).
  TRAFFIC_NOT_FOUND: { code: 404, message: 'no traffic run with this trafficId for this account' },
  TRAFFIC_NO_CARDS: {
    code: INVALID,
    message: 'the account has no ACTIVE card: create one (card/create) or name cardIds',
  },
  /** Detail: how many ACTIVE cards, and the most a run takes. */
  TRAFFIC_TOO_MANY_CARDS: { code: INVALID, message: 'a traffic run takes at most 20 cards: name them in cardIds' },
  /** Detail: the tenant's live runs and stories, and the limits. */
  TRAFFIC_LIMIT: {
    code: INVALID,
    message: "this tenant's live traffic runs are at their limit: stop one (traffic/stop)",
  },
  TRAFFIC_EMPTY_MIX: { code: INVALID, message: 'mix gives every kind a weight of 0: give at least one a weight' },
  // Account snapshots (docs/developer-tools.md, "Snapshots").
  /** Detail: how many rows or bytes, and the bound. */
  SNAPSHOT_TOO_LARGE: { code: INVALID, message: 'the snapshot is larger than a snapshot may be' },
  /** Detail: the first field that does not hold together, by its path in the document. */
  SNAPSHOT_INVALID: { code: INVALID, message: 'the snapshot does not hold together' },
  SNAPSHOT_NOT_SIGNED: {
    code: INVALID,
    message:
      'a hosted sandbox imports only snapshots it exported itself (signed with its secret), unchanged: load another ' +
      "server's snapshot with card-sandbox serve --snapshot FILE",
  },
  // Readiness runs (docs/readiness.md).
  READINESS_RUN_NOT_FOUND: { code: 404, message: 'no readiness run with this runId for this account' },
  READINESS_SENDING_LIMIT: {
    code: 429,
    message:
      'this tenant already has 10 readiness runs whose test deliveries are on the wire, the limit: retry after Retry-After seconds',
  },
  READINESS_NO_RUN: {
    code: INVALID,
    message:
      'no readiness run of this account is running: start one (readiness/run) and post your ledger during its window',
  },
  /** Detail: the running run's id and when its window ends. */
  READINESS_RUN_RUNNING: {
    code: INVALID,
    message: 'a readiness run of this account is still running: stop it with readiness/stop, or wait for it to end',
  },
} as const satisfies Record<string, { code: number; message: string }>;

export type ErrorName = keyof typeof ERRORS;

/** A failure as a value: thrown by the domain (and by request validation), answered by the HTTP layer. */
export class DomainError extends Error {
  readonly code: number;
  /**
   * What the sandbox knows of this failure beyond the spec's message (which stays as the spec words it): what to do
   * next, what is pending and until when. Answered beside the body, never in it (the Sandbox-Hint header).
   */
  hint: string | undefined;

  constructor(
    readonly errorName: ErrorName,
    /** Replaces the default message when the failure names a field or an amount. */
    detail?: string,
  ) {
    super(detail ?? ERRORS[errorName].message);
    this.code = ERRORS[errorName].code;
  }

  /** This failure with a hint (see `hint`). */
  withHint(hint: string | undefined): this {
    this.hint = hint;
    return this;
  }
}

/** Bad input naming its field (`amount must be ...`): the one failure whose text is given where it is found. */
export function invalidField(message: string): DomainError {
  return new DomainError('ILLEGAL_PARAMETER', message);
}

/** The catalogue's default message of a code (an injected fault answering a known code reads like the real one). */
export function messageForCode(code: number): string | undefined {
  return Object.values(ERRORS).find((e) => e.code === code)?.message;
}

// The store's refusal while its database is away: the domain passes it through, and the layers above it tell it apart.
export { StoreUnavailable } from '../../store/db.js';
