// What the HTTP layer hands the request log for one request (request-log.ts), before any redaction.

/**
 * Header names and values, alternating, joined by newlines (which HTTP forbids in both): one flat string per record
 * instead of an array of a dozen, since every object a pending record holds is work for the garbage collector.
 */
export type HeaderText = string;

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
}
