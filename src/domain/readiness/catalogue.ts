// The readiness checks (docs/readiness.md): stable ids, titles, and the one line of advice each gives when it fails or
// has nothing to observe. The ids are a contract, like the API's field names: CI jobs and the docs' anchors use them.

export type CheckResult = 'pass' | 'fail' | 'not_observed';

export interface CheckOutcome {
  id: CheckId;
  title: string;
  result: CheckResult;
  /** Request ids (request log) or readiness delivery ids the result rests on: the first MAX_EVIDENCE of them. */
  evidence: string[];
  /** How many more ids the result rests on beyond those listed (0 when none were left out). */
  evidenceOmitted: number;
  /** What to change (fail) or what to exercise (not_observed), ending with the docs link; null on a pass. */
  advice: string | null;
  /**
   * Which request the check paired with which, and how far apart (the 429 and the next request, a faulted write and
   * its retry), whatever the result; null for a check that pairs none, or when it found no pair.
   */
  paired: string | null;
}

export const RECEIVER_CHECKS = [
  'receiver-accepts-signed',
  'receiver-rejects-bad-signature',
  'receiver-rejects-stale-timestamp',
  'receiver-rejects-tampered-body',
  'receiver-accepts-duplicate',
] as const;

export const API_CHECKS = [
  'idempotency-key-on-writes',
  'retry-after-dropped-response',
  'retry-after-server-error',
  'waits-retry-after',
  'no-tight-loop-on-inventory',
] as const;

/** Judged from what the partner posts of its own ledger (readiness/ledger). */
export const LEDGER_CHECK = 'ledger-agrees';

export type ReceiverCheckId = (typeof RECEIVER_CHECKS)[number];
export type ApiCheckId = (typeof API_CHECKS)[number];
export type CheckId = ReceiverCheckId | ApiCheckId | typeof LEDGER_CHECK;

const TITLES: Record<CheckId, string> = {
  'receiver-accepts-signed': 'Receiver answers 2xx to a correctly signed delivery within 10 s',
  'receiver-rejects-bad-signature': 'Receiver refuses a delivery with a bad signature',
  'receiver-rejects-stale-timestamp': 'Receiver refuses a delivery signed more than 300 s ago',
  'receiver-rejects-tampered-body': 'Receiver refuses a body changed after signing',
  'receiver-accepts-duplicate': 'Receiver answers 2xx to the same event delivered twice',
  'idempotency-key-on-writes': 'Every card/create and card/deposit carries an Idempotency-Key',
  'retry-after-dropped-response': 'After a dropped response, the retry reuses the same key and body',
  'retry-after-server-error': 'After a 500, the retry reuses the same key and body',
  'waits-retry-after': 'After a 429, the next request waits at least Retry-After',
  'no-tight-loop-on-inventory': 'After a 4009 or 4010, the call is not repeated in a tight loop',
  'ledger-agrees': 'The ledger built from your webhook events agrees with card/asset',
};

/** The Retry-After, in seconds, of the 429 a run injects. */
export const INJECTED_RETRY_AFTER_SECONDS = 2;
/**
 * A next request later than this many times the Retry-After tells nothing of whether the client waited for it (it may
 * have come back for another reason): waits-retry-after is then not_observed.
 */
export const RETRY_AFTER_SPAN = 10;
/** After a 4009/4010, more than this many repeats of the call within LOOP_WINDOW_MS is a tight loop. */
export const LOOP_LIMIT = 5;
export const LOOP_WINDOW_MS = 10_000;
/** Evidence lists are cut here: enough to find the pattern in the request log. */
const MAX_EVIDENCE = 20;

/** What contracts/index.json says a run makes of each path (its entries' `readiness`), given to the domain. */
export interface ReadinessPaths {
  /** The writes a run drops and fails, and whose Idempotency-Key it checks. */
  keyedWrites: ReadonlySet<string>;
  /** The run's own operations: the tool, not the integration, never part of what the checks judge. */
  notJudged: ReadonlySet<string>;
}

const link = (id: CheckId) => ` See docs/readiness.md#${id}`;

/** Why a check failed, in the words of what to change. */
const FAIL_ADVICE: Record<CheckId, string> = {
  'receiver-accepts-signed':
    'Answer 2xx within 10 s once the signature verifies: acknowledge first and process afterwards (an unknown card id is no reason to refuse).',
  'receiver-rejects-bad-signature':
    'Verify the HMAC-SHA256 of "<t>.<raw body>" keyed with your signing secret, compare in constant time, and answer 4xx when it does not match.',
  'receiver-rejects-stale-timestamp':
    'Refuse (4xx) a delivery whose signature timestamp t is more than 300 s away from your clock, so a captured delivery cannot be replayed.',
  'receiver-rejects-tampered-body':
    'Compute the HMAC over the raw body bytes as received, before parsing JSON, and answer 4xx when it does not match.',
  'receiver-accepts-duplicate':
    'Deduplicate on the event id but answer 2xx to a delivery you already processed, or it is retried for hours.',
  'idempotency-key-on-writes':
    'Send an Idempotency-Key (a new UUID per operation, kept for its retries) on every card/create and card/deposit.',
  'retry-after-dropped-response':
    'When a write gets no answer, retry it with the same Idempotency-Key and the same body: a new key creates a second card or top-up.',
  'retry-after-server-error': 'After a 5xx on a write, retry it with the same Idempotency-Key and the same body.',
  'waits-retry-after':
    'After a 429, wait the Retry-After seconds before the next request (a shared budget: pause every worker).',
  'no-tight-loop-on-inventory':
    'After 4009 stop and alert (inventory needs the issuer); after 4010 retry with a growing delay, not at once.',
  'ledger-agrees':
    'Take the funding from your own calls (no event carries it: a card/create credit at once, a card/deposit credit once card/asset shows it), and fold every transaction event by its status and billAmount as they stand after the change (PENDING holds, CLEARED spends, REFUND credits; DECLINED and CANCELLED count nothing), in the order they arrive.',
};

/** What to exercise during the window so that the check has something to observe. */
const UNOBSERVED_ADVICE: Record<CheckId, string> = {
  'receiver-accepts-signed':
    'No outcome for the test delivery (the run was interrupted, or is still sending): start another run.',
  'receiver-rejects-bad-signature':
    'Make the receiver answer 2xx to a correctly signed delivery first: until it does, a refusal here proves nothing.',
  'receiver-rejects-stale-timestamp':
    'Make the receiver answer 2xx to a correctly signed delivery first: until it does, a refusal here proves nothing.',
  'receiver-rejects-tampered-body':
    'Make the receiver answer 2xx to a correctly signed delivery first: until it does, a refusal here proves nothing.',
  'receiver-accepts-duplicate':
    'No outcome for both deliveries of the event (the run was interrupted, or is still sending): start another run.',
  'idempotency-key-on-writes': 'Create or top up a card (card/create, card/deposit) during the window.',
  'retry-after-dropped-response':
    'Make a keyed card/create or card/deposit that succeeds during the window, and retry it when its answer is lost.',
  'retry-after-server-error':
    'Make another keyed card/create or card/deposit after the dropped one, and retry it after its 500.',
  'waits-retry-after':
    'Make a read (wallet/assetList, card/list, bill/list ...) during the window, and let the same client carry on after its 429 (the same process, keeping its connection), within 10 times the Retry-After.',
  'no-tight-loop-on-inventory':
    'Set the inventory to 0 (sandbox/v1/inventory) and call card/create during the window, as your code would in production.',
  'ledger-agrees':
    'Run traffic (sandbox/v1/traffic/start), advance the clock, then post what your ledger says of each card (sandbox/v1/readiness/ledger) during the window.',
};

/** Receiver checks of a run without a receiver: nothing could be signed. */
const NO_RECEIVER_ADVICE =
  'No test delivery was sent: the account has no webhook to sign it with. Configure the webhook (PUT /v1/webhook), or pass webhookUrl with a configured webhook: deliveries are signed with its secret.';
/** API checks on a server that keeps no request log. */
const NO_LOG_ADVICE = 'This server runs with the request log off (--request-log off): API-use checks read it.';

export function outcome(
  id: CheckId,
  result: CheckResult,
  evidence: readonly string[] = [],
  /** What was seen, told before the advice of a failure. */
  finding = '',
  /** Which request the check paired with which (`CheckOutcome.paired`). */
  paired: string | null = null,
): CheckOutcome {
  const advice =
    result === 'pass' ? null : finding + (result === 'fail' ? FAIL_ADVICE[id] : UNOBSERVED_ADVICE[id]) + link(id);
  return {
    id,
    title: TITLES[id],
    result,
    evidence: evidence.slice(0, MAX_EVIDENCE),
    evidenceOmitted: Math.max(0, evidence.length - MAX_EVIDENCE),
    advice,
    paired,
  };
}

/**
 * Whether a check's result is final enough for a run to end on it (a run ends once every check is, unless it asked for
 * its full window): pass or fail. ledger-agrees only on a pass: a partner's ledger may lag the events still being
 * delivered, and a failed post is taken back by a later one that agrees, so a failing ledger keeps the run to its
 * window's end (where the last post stands).
 */
export function isDecided(check: Pick<CheckOutcome, 'id' | 'result'>): boolean {
  return check.id === LEDGER_CHECK ? check.result === 'pass' : check.result !== 'not_observed';
}

export function noReceiver(id: ReceiverCheckId): CheckOutcome {
  return { ...outcome(id, 'not_observed'), advice: NO_RECEIVER_ADVICE + link(id) };
}

export function noRequestLog(id: ApiCheckId): CheckOutcome {
  return { ...outcome(id, 'not_observed'), advice: NO_LOG_ADVICE + link(id) };
}
