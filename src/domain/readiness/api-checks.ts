import { canonicalJson } from '../idempotency/keys.js';
import {
  INJECTED_RETRY_AFTER_SECONDS,
  LOOP_LIMIT,
  LOOP_WINDOW_MS,
  RETRY_AFTER_SPAN,
  outcome,
  type CheckOutcome,
} from './catalogue.js';

// The API-use checks of a readiness run, judged from the request log of its window: plain functions over the
// recorded requests, so a result can always be traced to request ids a partner can open.

/** One request of the window as the request log recorded it. */
interface Logged {
  seq: number;
  requestId: string;
  atMs: number;
  path: string;
  status: number;
  code: number | null;
  idempotencyKey: string | null;
}

/** The request log as the checks read it; the request-log module provides it (the domain cannot reach the log). */
export interface WindowLog {
  /** The account's requests that started within [fromMs, toMs], in the order they were recorded. */
  requests(accountId: string, fromMs: number, toMs: number): Promise<Logged[]>;
  /** The recorded JSON body of a request (undefined when it is not there). */
  bodyOf(seq: number): Promise<unknown>;
}

export interface ApiInput {
  /** The window's requests in the order they were recorded (the run's own routes left out). */
  requests: readonly Logged[];
  /** The paths of the writes whose key is checked (contracts/index.json, `readiness: keyed-write`). */
  keyedWrites: ReadonlySet<string>;
  /**
   * The request each armed fault fell on, or null while it has not; and when the client that got the 429 closed the
   * connection it came on (wall ms; null: not seen to).
   */
  faults: { drop: string | null; error: string | null; throttle: string | null; throttleGoneMs: number | null };
  /** The recorded JSON body of a request (undefined when it is not there). */
  bodyOf(seq: number): Promise<unknown>;
}

/** The five API-use checks, in catalogue order. */
export async function evaluateApiChecks(input: ApiInput): Promise<CheckOutcome[]> {
  const isDrop = (r: Logged) => r.status >= 200 && r.status < 300;
  return [
    keysOnWrites(input.requests, input.keyedWrites),
    await retryOfFault(input, 'retry-after-dropped-response', input.faults.drop, isDrop),
    await retryOfFault(input, 'retry-after-server-error', input.faults.error, (r) => r.status === 500),
    waitAfterThrottle(input.requests, input.faults.throttle, input.faults.throttleGoneMs),
    noTightLoop(input.requests),
  ];
}

function keysOnWrites(requests: readonly Logged[], keyedWrites: ReadonlySet<string>): CheckOutcome {
  const writes = requests.filter((r) => keyedWrites.has(r.path));
  if (writes.length === 0)
    return outcome('idempotency-key-on-writes', 'not_observed', [], 'No card/create or card/deposit in the window. ');
  const keyless = writes.filter((r) => !r.idempotencyKey).map((r) => r.requestId);
  return outcome('idempotency-key-on-writes', keyless.length ? 'fail' : 'pass', keyless);
}

/**
 * The retry of the request a fault fell on: the next request to the same path with the same key, else the next one
 * with the same body (a retry under a new key). It must carry both the same key and the same body. No such request
 * is nothing to observe: the client gave the call up, or has not retried yet.
 */
async function retryOfFault(
  input: ApiInput,
  id: 'retry-after-dropped-response' | 'retry-after-server-error',
  faultedId: string | null,
  isFaulted: (r: Logged) => boolean,
): Promise<CheckOutcome> {
  const faulted = input.requests.find((r) => r.requestId === faultedId && isFaulted(r));
  const what = id === 'retry-after-dropped-response' ? 'dropped answer' : '500';
  if (!faulted) {
    const why = faultedId
      ? `The request given the ${what} is not in the request log of the window. `
      : id === 'retry-after-dropped-response'
        ? 'No keyed card/create or card/deposit succeeded in the window, so no answer was dropped. '
        : 'No keyed card/create or card/deposit came after the dropped one, so no 500 was given. ';
    return outcome(id, 'not_observed', faultedId ? [faultedId] : [], why);
  }
  const later = input.requests.filter((r) => r.seq > faulted.seq && r.path === faulted.path);
  const body = canonical(await input.bodyOf(faulted.seq));
  const sameBody = async (r: Logged) => body !== undefined && canonical(await input.bodyOf(r.seq)) === body;
  let retry =
    (faulted.idempotencyKey !== null && later.find((r) => r.idempotencyKey === faulted.idempotencyKey)) || undefined;
  // One body after another (a predicate that awaits cannot be given to find: its promise is always truthy).
  for (const r of later) {
    if (retry) break;
    if (await sameBody(r)) retry = r;
  }
  if (!retry)
    return outcome(
      id,
      'not_observed',
      [faulted.requestId],
      `The call given the ${what} was not retried in the window. `,
    );
  const sameKey = retry.idempotencyKey !== null && retry.idempotencyKey === faulted.idempotencyKey;
  const paired =
    `${pairOf(faulted, `the ${what}`, retry, 'its retry')}: ` +
    `${sameKey ? 'the same key' : retry.idempotencyKey === null ? 'no key' : 'another key'}, ` +
    `${(await sameBody(retry)) ? 'the same body' : 'another body'}`;
  return outcome(
    id,
    sameKey && (await sameBody(retry)) ? 'pass' : 'fail',
    [faulted.requestId, retry.requestId],
    '',
    paired,
  );
}

/** `req_A (the 500) with req_B (its retry, /v1/card/create), 0.40 s later`: which request a check paired with which. */
function pairOf(first: Logged, firstIs: string, then: Logged, thenIs: string): string {
  return `${first.requestId} (${firstIs}) with ${then.requestId} (${thenIs}, ${then.path}), ${seconds(then.atMs - first.atMs)} later`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function canonical(body: unknown): string | undefined {
  return body === undefined || body === null ? undefined : canonicalJson(body);
}

/**
 * The first request of the account after the 429 must come at least Retry-After later (request-log times). A pass is
 * earned only by a client seen waiting: a next request more than RETRY_AFTER_SPAN times the Retry-After later, or
 * after the client that got the 429 closed its connection (it crashed, or was a one-shot process; the next request
 * may be a new run of it), is not_observed. Sooner than Retry-After fails whoever sent it: the budget is the account's.
 */
function waitAfterThrottle(
  requests: readonly Logged[],
  throttledId: string | null,
  goneMs: number | null,
): CheckOutcome {
  const throttled = requests.find((r) => r.requestId === throttledId && r.status === 429);
  if (!throttled) {
    const why = throttledId
      ? 'The request given the 429 is not in the request log of the window. '
      : 'No read in the window, so no 429 was given. ';
    return outcome('waits-retry-after', 'not_observed', throttledId ? [throttledId] : [], why);
  }
  const next = requests.find((r) => r.seq > throttled.seq);
  if (!next)
    return outcome('waits-retry-after', 'not_observed', [throttled.requestId], 'No request came after the 429. ');
  const evidence = [throttled.requestId, next.requestId];
  const waitedMs = next.atMs - throttled.atMs;
  const retryAfterMs = INJECTED_RETRY_AFTER_SECONDS * 1000;
  const gone = goneMs !== null && goneMs <= next.atMs;
  const paired =
    pairOf(throttled, `the 429, Retry-After ${INJECTED_RETRY_AFTER_SECONDS} s`, next, 'the next request') +
    (gone
      ? `, after the client had closed the connection of the 429 (${seconds(goneMs - throttled.atMs)} after it)`
      : '');
  if (waitedMs < retryAfterMs) return outcome('waits-retry-after', 'fail', evidence, '', paired);
  if (gone) {
    const why =
      `The client that got the 429 closed its connection ${seconds(goneMs - throttled.atMs)} after it, and the next ` +
      `request came ${seconds(waitedMs)} after the 429: a new run of the client cannot be told from one that waited. `;
    return outcome('waits-retry-after', 'not_observed', evidence, why, paired);
  }
  if (waitedMs > RETRY_AFTER_SPAN * retryAfterMs) {
    const why =
      `The next request came ${seconds(waitedMs)} after the 429, more than ${RETRY_AFTER_SPAN} times its Retry-After: ` +
      'it tells nothing of whether the client waited for it. ';
    return outcome('waits-retry-after', 'not_observed', evidence, why, paired);
  }
  return outcome('waits-retry-after', 'pass', evidence, '', paired);
}

/** After each 4009/4010, the same call (path) repeated more than LOOP_LIMIT times within LOOP_WINDOW_MS is a loop. */
function noTightLoop(requests: readonly Logged[]): CheckOutcome {
  const refusals = requests.filter((r) => r.code === 4009 || r.code === 4010);
  if (refusals.length === 0)
    return outcome('no-tight-loop-on-inventory', 'not_observed', [], 'No 4009 or 4010 in the window. ');
  for (const refused of refusals) {
    const repeats = requests.filter(
      (r) => r.seq > refused.seq && r.path === refused.path && r.atMs - refused.atMs <= LOOP_WINDOW_MS,
    );
    if (repeats.length > LOOP_LIMIT) {
      return outcome('no-tight-loop-on-inventory', 'fail', [refused.requestId, ...repeats.map((r) => r.requestId)]);
    }
  }
  return outcome(
    'no-tight-loop-on-inventory',
    'pass',
    refusals.map((r) => r.requestId),
  );
}
