// What the server counts for its operator (GET /metrics, docs/hosted.md): the places where a tenant budget acts
// and where a webhook attempt ends report here; the HTTP layer exposes the counts. Every label is one of a fixed
// set named below, never a tenant, an account, a key or a path: what a client sends can add no series.

/** The tenant budgets (docs/hosted.md) whose refusals are counted. */
export const BUDGETS = ['rate', 'in_flight', 'connections', 'request_log', 'sessions'] as const;
export type Budget = (typeof BUDGETS)[number];

/**
 * How a webhook attempt ended: `delivered` (2xx), `failed` (anything else; a retry may follow), `gave_up` (the
 * delivery's last scheduled attempt failed: counted beside its `failed`, once per event given up on).
 */
export const DELIVERY_RESULTS = ['delivered', 'failed', 'gave_up'] as const;
export type DeliveryResult = (typeof DELIVERY_RESULTS)[number];

/** Counters of one server since it started. */
export class Meter {
  readonly refusals = new Map<Budget, number>(BUDGETS.map((b) => [b, 0]));
  readonly deliveries = new Map<DeliveryResult, number>(DELIVERY_RESULTS.map((r) => [r, 0]));

  /** A tenant budget refused a request, or dropped what it bounds (`count` request-log records, say). */
  refused(budget: Budget, count = 1): void {
    this.refusals.set(budget, this.refusals.get(budget)! + count);
  }

  delivered(result: DeliveryResult): void {
    this.deliveries.set(result, this.deliveries.get(result)! + 1);
  }
}
