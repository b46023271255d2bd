// One operation's request counts and durations, as GET /metrics reports them (metrics.ts).

/** Upper bounds of the duration histogram's buckets, in seconds (a read takes well under a millisecond). */
export const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/**
 * A status label: the HTTP status the server answered, or `fault` for an answer an injected fault made (a rule's
 * `respond`, a readiness run's 500 or 429), whatever its status: a tenant chooses those, 400 to 599, and each used to
 * add a series of its own.
 */
export type StatusLabel = number | 'fault';

/** One operation's answers by status and its durations. */
export class OperationStats {
  readonly byStatus = new Map<StatusLabel, number>();
  /** Observations per bucket (not cumulative); the last one is past every bound. */
  readonly buckets = new Float64Array(BUCKETS.length + 1);
  sumSeconds = 0;
  count = 0;

  constructor(readonly operation: string) {}

  observe(status: StatusLabel, seconds: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    let i = 0;
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++;
    this.buckets[i]!++;
    this.sumSeconds += seconds;
    this.count++;
  }
}
