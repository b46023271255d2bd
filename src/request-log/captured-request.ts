// What the HTTP layer hands the request log for one request (request-log.ts), before any redaction.

/**
 * Header names and values, alternating, joined by newlines (which HTTP forbids in both): one flat string per record
 * instead of an array of a dozen, since every object a pending record holds is work for the garbage collector.
 */
export type HeaderText = string;

/**
 * What an injected fault did to a request (sandbox/v1/faults, or a readiness run's own): how long it held the request
 * and why it went on, and what the client got. A plain value of numbers and names: it holds nothing to redact.
 */
export interface FaultEffect {
  /** The account's own faults (sandbox/v1/faults) or its readiness run's. */
  by: 'faults' | 'readiness';
  /**
   * A wait before the request went on: a latency (`latencyMs`, wall time) that `elapsed`, or a hold until the account
   * `released` it; either ends `gone` when the client left first, `deleted` when its sandbox was deleted meanwhile (the
   * operation then never ran). `ms`: wall milliseconds held.
   */
  wait: {
    kind: 'latency' | 'hold';
    ms: number;
    ended: 'elapsed' | 'released' | 'gone' | 'deleted' | 'stopping';
  } | null;
  /**
   * What the client got: `sent` the operation's own answer; `injected` the fault's answer, the operation never ran;
   * `dropped` nothing, the operation ran and committed and then the connection was reset.
   */
  answer: 'sent' | 'injected' | 'dropped';
}

/** What the HTTP layer hands over for one request; nothing here is redacted yet. */
export interface CapturedRequest {
  accountId: string;
  requestId: string;
  /** Wall-clock Unix ms at arrival. */
  atMs: number;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  keyId: string | null;
  /** Its `X-API-KEY` is masked by value wherever it shows up in the record (a bootstrap key may have any shape). */
  requestHeaders: HeaderText;
  /** null: no body; undefined: not read (it is then not recorded). */
  requestBody: string | null | undefined;
  responseHeaders: HeaderText;
  responseBody: string | null | undefined;
  /** The console made the call for a page it serves (never a partner's own request). */
  fromConsole: boolean;
  /** What an injected fault did to the request, as JSON of a FaultEffect; null when none touched it. */
  fault: string | null;
}
