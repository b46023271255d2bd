import type { MiddlewareHandler } from 'hono';
import { BUDGETS, DELIVERY_RESULTS } from '../metering/meter.js';
import { backlog, type Backlog } from '../domain/kernel/backlog.js';
import type { ConnectionGuard } from './connection-guard.js';
import type { ServerDeps } from './server-deps.js';
import type { AppEnv } from './context.js';
import type { Route } from './router.js';
import { BUCKETS, OperationStats } from './operation-stats.js';

// GET /metrics (docs/hosted.md): request counts and durations by operation, tenant budgets' refusals, webhook
// attempts' results, backlogs, and the process's own figures, in Prometheus's text format. Every label value comes
// from a fixed set: an operation is the contract's name for it (`POST /v1/card/create`, `GET /admin/v1/accounts/{id}`,
// never a path as sent), or one of `GET /metrics`, `console`, `docs` and `unmatched`; a status is one the server
// answers of itself, or `fault` for any answer an injected fault made. So no request can add a series, whatever its path, key or tenant.
//
// The request path only adds to numbers held here (each route finds its operation's counts when the app is built);
// prom-client, which formats them and measures the process, loads on the first scrape or once the server answers,
// off the start-up path.

/** The labels a request can be counted under beside the contract's operations. */
const OTHER = { metrics: 'GET /metrics', console: 'console', docs: 'docs', unmatched: 'unmatched' } as const;

/** The request counts of one app: one OperationStats per operation, made when the app is built. */
export class RequestMetrics {
  private readonly byOperation = new Map<string, OperationStats>();
  private readonly other = {
    console: this.stats(OTHER.console),
    docs: this.stats(OTHER.docs),
    unmatched: this.stats(OTHER.unmatched),
  };

  private stats(operation: string): OperationStats {
    let s = this.byOperation.get(operation);
    if (!s) this.byOperation.set(operation, (s = new OperationStats(operation)));
    return s;
  }

  /** A route's first step: the request counts under its operation (read back when it is answered). */
  label(route: Pick<Route, 'key'>): MiddlewareHandler<AppEnv> {
    const stats = this.stats(route.key);
    return function metricsLabel(c, next) {
      c.set('operation', stats);
      return next();
    };
  }

  /** The label step of GET /metrics itself. */
  labelMetrics(): MiddlewareHandler<AppEnv> {
    return this.label({ key: OTHER.metrics });
  }

  /** The app's first step: times every request and counts its answer under its operation. */
  middleware(): MiddlewareHandler<AppEnv> {
    const other = this.other;
    return async function requestMetrics(c, next) {
      const startMs = performance.now();
      await next();
      // Only a request no route labelled (an unknown path, a refusal before routing) looks at its path.
      const stats =
        c.get('operation') ??
        (c.req.path.startsWith('/console')
          ? other.console
          : c.req.path === '/docs' || c.req.path.startsWith('/docs/') || c.req.path === '/openapi.json'
            ? other.docs
            : other.unmatched);
      // An injected fault's answer is counted as one label, whatever status the tenant chose for it.
      stats.observe(
        c.get('faultEffect')?.answer === 'injected' ? 'fault' : c.res.status,
        (performance.now() - startMs) / 1000,
      );
    };
  }

  /** Every operation that has answered at least once. */
  answered(): OperationStats[] {
    return [...this.byOperation.values()].filter((s) => s.count > 0);
  }
}

/** A metric as prom-client's registry formats it (its `get()` is called on every scrape). */
interface Collected {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: { value: number; labels?: Record<string, string | number>; metricName?: string }[];
}

function metric(name: string, help: string, type: Collected['type'], values: () => Collected['values']) {
  return { name, help, type, get: (): Collected => ({ name, help, type, values: values() }) };
}

function histogramValues(name: string, all: OperationStats[]): Collected['values'] {
  return all.flatMap((s) => {
    let cumulative = 0;
    const labels = { operation: s.operation };
    return [
      ...BUCKETS.map((le, i) => {
        cumulative += s.buckets[i]!;
        return { metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative };
      }),
      { metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: s.count },
      { metricName: `${name}_sum`, labels, value: s.sumSeconds },
      { metricName: `${name}_count`, labels, value: s.count },
    ];
  });
}

type PromClient = typeof import('prom-client');

let promClient: Promise<PromClient> | undefined;
const loadPromClient = () => (promClient ??= import('prom-client'));

/** Scrapes of one server: its registry (made on first use) over the app's counts and the deps' meter. */
export class MetricsExposition {
  private registry: Promise<InstanceType<PromClient['Registry']>> | undefined;
  /** Read at the start of each scrape. */
  private backlog: Backlog = { pendingDeliveries: 0, dueJobs: 0, requestLogBytes: 0 };

  constructor(
    private readonly deps: ServerDeps,
    private readonly requests: RequestMetrics,
  ) {}

  /** Loads prom-client and starts the process metrics (event-loop lag among them): done by a server once it answers. */
  warmUp(): void {
    void this.registryOf().catch((err: unknown) => this.deps.logger.error({ err }, 'metrics registry not made'));
  }

  async text(): Promise<{ contentType: string; body: string }> {
    const registry = await this.registryOf();
    this.backlog = await backlog(this.deps);
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  private registryOf() {
    return (this.registry ??= loadPromClient().then((prom) => {
      const registry = new prom.Registry();
      prom.collectDefaultMetrics({ register: registry });
      const { deps, requests } = this;
      const { meter } = deps;
      for (const m of [
        metric('sandbox_http_requests_total', 'Requests answered, by operation and HTTP status', 'counter', () =>
          requests
            .answered()
            .flatMap((s) =>
              [...s.byStatus].map(([status, value]) => ({ labels: { operation: s.operation, status }, value })),
            ),
        ),
        metric(
          'sandbox_http_request_duration_seconds',
          'Time from receiving a request to answering it, by operation',
          'histogram',
          () => histogramValues('sandbox_http_request_duration_seconds', requests.answered()),
        ),
        metric(
          'sandbox_tenant_refusals_total',
          'Requests a tenant budget refused (request_log: records dropped past the tenant bound), by budget',
          'counter',
          () => BUDGETS.map((budget) => ({ labels: { budget }, value: meter.refusals.get(budget)! })),
        ),
        metric(
          'sandbox_webhook_deliveries_total',
          'Webhook attempts by result (gave_up: a delivery whose last scheduled attempt failed)',
          'counter',
          () => DELIVERY_RESULTS.map((result) => ({ labels: { result }, value: meter.deliveries.get(result)! })),
        ),
        metric(
          'sandbox_instance_info',
          'This server process: its instance id (as /healthz and its log lines name it) and its store',
          'gauge',
          () => [{ labels: { instance_id: deps.instance, store: deps.store.dialect }, value: 1 }],
        ),
        metric(
          'sandbox_instances_live',
          'Instances serving the database as this one counted them at its last heartbeat (1 on SQLite); each enforces its share of every tenant budget',
          'gauge',
          () => [{ labels: {}, value: deps.deployment.instances }],
        ),
        ...backlogGauges(() => this.backlog),
        ...connectionMetrics(deps.connectionGuard),
      ]) {
        registry.registerMetric(m as unknown as Parameters<typeof registry.registerMetric>[0]);
      }
      return registry;
    }));
  }
}

/** What the connection guard (hosted mode) holds and did; zeros in local mode, where there is none. */
function connectionMetrics(guard: ConnectionGuard | undefined) {
  return [
    metric(
      'sandbox_connections',
      'Connections held: open (let in), anonymous (let in, no credential proven yet), held (over a bound, waiting for their first request)',
      'gauge',
      () => {
        const counts = guard?.counts() ?? { open: 0, anonymous: 0, held: 0 };
        return CONNECTION_STATES.map((state) => ({ labels: { state }, value: counts[state] }));
      },
    ),
    metric(
      'sandbox_connection_bound_total',
      'What the connection bounds did: closed_idle (an idle connection closed to make room), refused (a request answered 429), dropped (a connection closed unanswered past the held bound)',
      'counter',
      () => [
        { labels: { outcome: 'closed_idle' }, value: guard?.evicted ?? 0 },
        { labels: { outcome: 'refused' }, value: guard?.refused ?? 0 },
        { labels: { outcome: 'dropped' }, value: guard?.dropped ?? 0 },
      ],
    ),
  ];
}

const CONNECTION_STATES = ['open', 'anonymous', 'held'] as const;

/** The backlog's three gauges, over what `read()` answers (the scrape reads the database once for the three). */
function backlogGauges(read: () => Backlog) {
  return [
    metric(
      'sandbox_webhook_delivery_backlog',
      'Webhook deliveries pending (their next attempt not yet made)',
      'gauge',
      () => [{ value: read().pendingDeliveries }],
    ),
    metric('sandbox_jobs_due', "Timers due on their account's clock and not yet run", 'gauge', () => [
      { value: read().dueJobs },
    ]),
    metric('sandbox_request_log_bytes', 'Bytes of request-log records stored, all tenants', 'gauge', () => [
      { value: read().requestLogBytes },
    ]),
  ];
}
