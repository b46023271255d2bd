// What the rate limit (middleware/rate-limit.ts) keeps, a member of the server's deps.

export interface Bucket {
  tokens: number;
  atMs: number;
}

/** One per server, shared by /v1 and /sandbox/v1 so a key's budget covers both. */
export class RateLimits {
  /** Per tenant (an account and its child sandboxes), its budget. */
  readonly buckets = new Map<string, Bucket>();
  /** Per tenant, its 429s being held. */
  readonly held = new Map<string, number>();
}
