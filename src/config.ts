import { parseArgs } from 'node:util';
import ipaddr from 'ipaddr.js';
import { parseDecimal, parseRatePpm } from './domain/kernel/money.js';

export interface Config {
  host: string;
  port: number;
  /** A SQLite file path, ':memory:', or a PostgreSQL URL (`postgres://` or `postgresql://`). */
  dbPath: string;
  /** On PostgreSQL: the connection pool's bound and how long a statement or a connection may take. */
  postgres: {
    maxConnections: number;
    statementTimeoutMs: number;
    connectTimeoutMs: number;
    idleInTransactionTimeoutMs: number;
  };
  mode: 'local' | 'hosted';
  adminToken: string | undefined;
  /** When set, a bootstrap account owning this key exists. */
  apiKey: string | undefined;
  /** Create and print a fresh bootstrap key on an empty database (npm start). */
  bootstrapAccount: boolean;
  seedBalanceMicros: number;
  depositFeeRatePpm: number;
  missingKeyStatus: 401 | 403;
  allowHttpWebhooks: boolean;
  webhookHeaderPrefix: string;
  /** Wall-clock limit of one webhook attempt (connect, send, answer). */
  webhookTimeoutMs: number;
  /**
   * How long a key in flight stays held by its instance without being renewed (wall clock): a key held by an instance
   * that died is free this long after its last renewal at most. Renewed every third of it while held.
   */
  idempotencyLeaseMs: number;
  /**
   * How long an instance's claim on a job that waits on the network (a webhook attempt) holds unless renewed: the
   * running instance renews it every third of it, so one that died hands the job to another within this (at most 30 s).
   */
  jobLeaseMs: number;
  topUpSettleSeconds: number;
  cancelSeconds: number;
  /** Server secret text; when absent it lives in `<db>.secret` (or is random for ':memory:'). */
  secret: string | undefined;
  logLevel: string;
  /** Requests per second per tenant (an account and its child sandboxes) in hosted mode. */
  rateLimitPerSecond: number;
  /** Hosted mode: how long a 429 is held before it is sent (0: at once). */
  rateLimitHoldMs: number;
  /** On SIGTERM/SIGINT, how long in-flight requests and deliveries may take before they are cut. */
  shutdownGraceSeconds: number;
  /** Run due jobs from a wall-clock timer (off in tests, which advance clocks explicitly). */
  backgroundJobs: boolean;
  /** Record authenticated requests in the per-account request log (docs/developer-tools.md). */
  requestLog: boolean;
  /** Serve the web console at /console (and redirect / to it). */
  console: boolean;
  /** Connection limits of the HTTP server (hosted mode has tighter defaults: see HOSTED_SERVER_LIMITS). */
  server: ServerLimits;
  /** What one tenant (an account and its child sandboxes) may hold: docs/hosted.md. */
  tenant: TenantLimits;
  /** A snapshot file (snapshot/export's answer): a new database starts with an account holding its state. */
  snapshotFile: string | undefined;
  /**
   * The proxies whose X-Forwarded-For is believed (`--trust-proxy`), as CIDRs in their normal form (`10.0.0.0/8`,
   * `2001:db8::/32`; an IPv4-mapped IPv6 range as the IPv4 range it maps); empty: the header is never read.
   */
  trustProxy: readonly string[];
}

interface TenantLimits {
  /** Hosted mode: requests in flight at once (a fault's latency and a held 429 included). */
  maxInFlight: number;
  /** Hosted mode: open connections at once. */
  maxConnections: number;
  /** Bytes of request-log records kept for the tenant's accounts together (every mode). */
  requestLogBytes: number;
}

/** Well below the hosted connection cap (4,096): 64 tenants at their bound before it is reached. */
const DEFAULT_TENANT_LIMITS: TenantLimits = Object.freeze({
  maxInFlight: 32,
  maxConnections: 64,
  requestLogBytes: 32 * 1024 * 1024,
});

interface ServerLimits {
  /** From a connection's first byte (or the end of the previous request) to the end of the request headers. */
  headersTimeoutMs: number;
  /** To receive one whole request, headers and body (not the answer: a latency fault may hold that longer). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; past it new connections are closed at once. 0: no cap. */
  maxConnections: number;
}

/** Node 20's own defaults, kept for a sandbox on a developer's machine. */
const LOCAL_SERVER_LIMITS: ServerLimits = Object.freeze({
  headersTimeoutMs: 60_000,
  requestTimeoutMs: 300_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 0,
});

/**
 * A public sandbox shared by many partners: a silent or trickling client is cut within seconds (408 or closed), and
 * the connection count stays well under the process's file limit. docs/hosted.md gives the reasons for each.
 */
const HOSTED_SERVER_LIMITS: ServerLimits = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 4_096,
});

export const DEFAULT_CONFIG: Config = Object.freeze({
  host: '127.0.0.1',
  port: 8080,
  dbPath: './data/sandbox.db',
  // A statement or a connection that takes longer fails, and its request answers 503 before 10 s have passed. A
  // transaction idle for 10 s (its instance stalled: nothing of ours waits that long between two statements) is ended.
  postgres: Object.freeze({
    maxConnections: 10,
    statementTimeoutMs: 4000,
    connectTimeoutMs: 4000,
    idleInTransactionTimeoutMs: 10_000,
  }),
  mode: 'local',
  adminToken: undefined,
  apiKey: undefined,
  bootstrapAccount: true,
  seedBalanceMicros: 0,
  depositFeeRatePpm: 20_000,
  missingKeyStatus: 401,
  allowHttpWebhooks: false,
  webhookHeaderPrefix: 'Service',
  webhookTimeoutMs: 10_000,
  idempotencyLeaseMs: 15_000,
  jobLeaseMs: 15_000,
  topUpSettleSeconds: 3,
  cancelSeconds: 5,
  secret: undefined,
  logLevel: 'info',
  rateLimitPerSecond: 50,
  rateLimitHoldMs: 1000,
  shutdownGraceSeconds: 10,
  backgroundJobs: true,
  requestLog: true,
  console: true,
  server: LOCAL_SERVER_LIMITS,
  tenant: DEFAULT_TENANT_LIMITS,
  snapshotFile: undefined,
  trustProxy: Object.freeze([]),
});

export class ConfigError extends Error {}

/** The shortest admin token hosted mode accepts. */
const MIN_HOSTED_ADMIN_TOKEN = 16;

/** The server's own secrets, masked by value wherever they show up (logs, request log). */
export function configSecrets(config: Pick<Config, 'adminToken' | 'apiKey' | 'secret'>): string[] {
  return [config.adminToken, config.apiKey, config.secret].filter((s): s is string => typeof s === 'string');
}

/** `serve`'s flags; `arg` and `help` are its usage text (src/cli/args.ts), parseArgs ignores them. */
export const FLAGS = {
  port: { type: 'string', arg: 'N', help: 'port to listen on, 0 for any free one (env SANDBOX_PORT, default 8080)' },
  host: { type: 'string', arg: 'HOST', help: 'address to bind (env SANDBOX_HOST, default 127.0.0.1)' },
  db: {
    type: 'string',
    arg: 'PATH|URL',
    help: 'SQLite file, :memory:, or a postgres:// URL (env SANDBOX_DB, default ./data/sandbox.db)',
  },
  'db-pool': {
    type: 'string',
    arg: 'N',
    help: 'PostgreSQL: connections at most (env SANDBOX_DB_POOL, default 10)',
  },
  mode: { type: 'string', arg: 'local|hosted', help: 'hosted needs an admin token (env SANDBOX_MODE, default local)' },
  'admin-token': { type: 'string', arg: 'TOKEN', help: 'enables the operator API /admin/v1 (env SANDBOX_ADMIN_TOKEN)' },
  'api-key': { type: 'string', arg: 'KEY', help: "the ready account's key (env SANDBOX_API_KEY)" },
  'seed-balance': {
    type: 'string',
    arg: 'USDT',
    help: 'starting balance of the ready account (env SANDBOX_SEED_BALANCE, default 0)',
  },
  'deposit-fee-rate': {
    type: 'string',
    arg: 'RATE',
    help: 'deposit fee rate of new accounts (env SANDBOX_DEPOSIT_FEE_RATE, default 0.02)',
  },
  'missing-key-status': {
    type: 'string',
    arg: '401|403',
    help: 'status of a request without X-API-KEY (env SANDBOX_MISSING_KEY_STATUS, default 401)',
  },
  'allow-http-webhooks': {
    type: 'boolean',
    help: 'accept http:// webhook URLs beyond loopback (env SANDBOX_ALLOW_HTTP_WEBHOOKS=true)',
  },
  'webhook-header-prefix': {
    type: 'string',
    arg: 'PREFIX',
    help: 'webhook header prefix (env SANDBOX_WEBHOOK_HEADER_PREFIX, default Service)',
  },
  'log-level': { type: 'string', arg: 'LEVEL', help: 'pino level, or silent (env SANDBOX_LOG_LEVEL, default info)' },
  'rate-limit': {
    type: 'string',
    arg: 'N',
    help: 'hosted: requests a second per account and its children (env SANDBOX_RATE_LIMIT, default 50)',
  },
  'rate-limit-hold': {
    type: 'string',
    arg: 'MS',
    help: 'hosted: a 429 is sent after this long, 0 at once (env SANDBOX_RATE_LIMIT_HOLD_MS, default 1000)',
  },
  'shutdown-grace': {
    type: 'string',
    arg: 'SECONDS',
    help: 'time in-flight work gets on SIGTERM (env SANDBOX_SHUTDOWN_GRACE, default 10)',
  },
  'headers-timeout': {
    type: 'string',
    arg: 'MS',
    help: 'to receive request headers (env SANDBOX_HEADERS_TIMEOUT_MS, hosted 10000, local 60000)',
  },
  'request-timeout': {
    type: 'string',
    arg: 'MS',
    help: 'to receive a whole request (env SANDBOX_REQUEST_TIMEOUT_MS, hosted 30000, local 300000)',
  },
  'keep-alive-timeout': {
    type: 'string',
    arg: 'MS',
    help: 'an idle connection is then closed (env SANDBOX_KEEP_ALIVE_TIMEOUT_MS, default 5000)',
  },
  'max-connections': {
    type: 'string',
    arg: 'N',
    help: 'open connections at most, 0 no cap (env SANDBOX_MAX_CONNECTIONS, hosted 4096, local 0)',
  },
  'tenant-max-in-flight': {
    type: 'string',
    arg: 'N',
    help: 'hosted: requests in flight per account and its children (env SANDBOX_TENANT_MAX_IN_FLIGHT, default 32)',
  },
  'tenant-max-connections': {
    type: 'string',
    arg: 'N',
    help: 'hosted: connections per account and its children (env SANDBOX_TENANT_MAX_CONNECTIONS, default 64)',
  },
  'request-log-tenant-bytes': {
    type: 'string',
    arg: 'BYTES',
    help: 'request-log bytes kept per account and its children, at least 1 MiB (env SANDBOX_REQUEST_LOG_TENANT_BYTES, default 32 MiB)',
  },
  'trust-proxy': {
    type: 'string',
    arg: 'CIDR[,CIDR...]',
    help: 'proxies whose X-Forwarded-For names the client (env SANDBOX_TRUST_PROXY, default none: the header is ignored)',
  },
  seed: { type: 'string', multiple: true, arg: 'FILE', help: 'apply a scenario file at start' },
  snapshot: {
    type: 'string',
    arg: 'FILE',
    help: 'a new database starts with an account holding this snapshot/export answer (env SANDBOX_SNAPSHOT)',
  },
  'request-log': {
    type: 'string',
    arg: 'on|off',
    help: 'record requests for /sandbox/v1/requests (env SANDBOX_REQUEST_LOG, default on)',
  },
  console: { type: 'string', arg: 'on|off', help: 'the web console at /console (env SANDBOX_CONSOLE, default on)' },
} as const;

type Flag = keyof typeof FLAGS;

/** Flags beat environment, environment beats defaults. Returns one frozen config and the remaining flags. */
export function loadConfig(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
): { config: Config; seedFiles: string[] } {
  const { values } = parseArgs({ args: argv, options: FLAGS, strict: true, allowPositionals: false });
  const pick = (flag: Flag, envName: string): string | undefined => {
    const v = values[flag];
    if (typeof v === 'string') return v;
    const e = env[envName];
    return e === undefined || e === '' ? undefined : e;
  };
  const mode = oneOf(pick('mode', 'SANDBOX_MODE') ?? 'local', ['local', 'hosted'] as const, 'mode');
  const apiKey = pick('api-key', 'SANDBOX_API_KEY');
  const bootstrap = env.SANDBOX_BOOTSTRAP;
  const config: Config = {
    ...DEFAULT_CONFIG,
    host: pick('host', 'SANDBOX_HOST') ?? DEFAULT_CONFIG.host,
    port: integer(pick('port', 'SANDBOX_PORT') ?? String(DEFAULT_CONFIG.port), 'port', 0, 65535),
    dbPath: pick('db', 'SANDBOX_DB') ?? DEFAULT_CONFIG.dbPath,
    postgres: Object.freeze({
      ...DEFAULT_CONFIG.postgres,
      maxConnections: integer(pick('db-pool', 'SANDBOX_DB_POOL') ?? '10', 'db-pool', 1, 1000),
    }),
    mode,
    adminToken: pick('admin-token', 'SANDBOX_ADMIN_TOKEN'),
    apiKey,
    // Hosted mode never invents an account unless asked to; local mode makes one so `npm start` is usable.
    bootstrapAccount: bootstrap !== undefined ? bootstrap === 'true' : mode === 'local' || apiKey !== undefined,
    seedBalanceMicros: amount(pick('seed-balance', 'SANDBOX_SEED_BALANCE') ?? '0', 'seed balance'),
    depositFeeRatePpm: rate(pick('deposit-fee-rate', 'SANDBOX_DEPOSIT_FEE_RATE') ?? '0.02'),
    missingKeyStatus: Number(
      oneOf(
        pick('missing-key-status', 'SANDBOX_MISSING_KEY_STATUS') ?? '401',
        ['401', '403'] as const,
        'missing key status',
      ),
    ) as 401 | 403,
    allowHttpWebhooks:
      values['allow-http-webhooks'] ?? (env.SANDBOX_ALLOW_HTTP_WEBHOOKS ?? 'false').toLowerCase() === 'true',
    webhookHeaderPrefix: pick('webhook-header-prefix', 'SANDBOX_WEBHOOK_HEADER_PREFIX') ?? 'Service',
    webhookTimeoutMs: integer(env.SANDBOX_WEBHOOK_TIMEOUT_MS || '10000', 'webhook timeout', 1, 600_000),
    // At most 30 s: a key left by an instance that died is free within 30 s (docs/scaling.md). Shorter for tests.
    idempotencyLeaseMs: integer(
      env.SANDBOX_IDEMPOTENCY_LEASE_MS || String(DEFAULT_CONFIG.idempotencyLeaseMs),
      'idempotency lease',
      300,
      30_000,
    ),
    jobLeaseMs: integer(env.SANDBOX_JOB_LEASE_MS || '15000', 'job lease', 300, 30_000),
    secret: env.SANDBOX_SECRET || undefined,
    logLevel: pick('log-level', 'SANDBOX_LOG_LEVEL') ?? 'info',
    rateLimitPerSecond: integer(pick('rate-limit', 'SANDBOX_RATE_LIMIT') ?? '50', 'rate limit', 1, 1_000_000),
    rateLimitHoldMs: integer(
      pick('rate-limit-hold', 'SANDBOX_RATE_LIMIT_HOLD_MS') ?? '1000',
      'rate limit hold',
      0,
      60_000,
    ),
    requestLog:
      oneOf(pick('request-log', 'SANDBOX_REQUEST_LOG') ?? 'on', ['on', 'off'] as const, 'request log') === 'on',
    console: oneOf(pick('console', 'SANDBOX_CONSOLE') ?? 'on', ['on', 'off'] as const, 'console') === 'on',
    shutdownGraceSeconds: integer(pick('shutdown-grace', 'SANDBOX_SHUTDOWN_GRACE') ?? '10', 'shutdown grace', 0, 3600),
    server: serverLimits(mode, pick),
    snapshotFile: pick('snapshot', 'SANDBOX_SNAPSHOT'),
    trustProxy: trustedProxies(pick('trust-proxy', 'SANDBOX_TRUST_PROXY')),
    tenant: Object.freeze({
      maxInFlight: integer(
        pick('tenant-max-in-flight', 'SANDBOX_TENANT_MAX_IN_FLIGHT') ?? String(DEFAULT_TENANT_LIMITS.maxInFlight),
        'tenant max in flight',
        1,
        1_000_000,
      ),
      maxConnections: integer(
        pick('tenant-max-connections', 'SANDBOX_TENANT_MAX_CONNECTIONS') ??
          String(DEFAULT_TENANT_LIMITS.maxConnections),
        'tenant max connections',
        1,
        1_000_000,
      ),
      requestLogBytes: integer(
        pick('request-log-tenant-bytes', 'SANDBOX_REQUEST_LOG_TENANT_BYTES') ??
          String(DEFAULT_TENANT_LIMITS.requestLogBytes),
        'request-log tenant bytes',
        1024 * 1024,
        Number.MAX_SAFE_INTEGER,
      ),
    }),
  };
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(config.webhookHeaderPrefix)) {
    throw new ConfigError(
      `webhook header prefix must be a header token, got ${JSON.stringify(config.webhookHeaderPrefix)}`,
    );
  }
  if (config.mode === 'hosted' && !config.adminToken) {
    throw new ConfigError('hosted mode requires an admin token (SANDBOX_ADMIN_TOKEN or --admin-token)');
  }
  // A short token is guessed, and masked by value nowhere (a value under 8 characters would mask ordinary text).
  if (config.mode === 'hosted' && config.adminToken!.length < MIN_HOSTED_ADMIN_TOKEN) {
    throw new ConfigError(`hosted mode needs an admin token of at least ${MIN_HOSTED_ADMIN_TOKEN} characters`);
  }
  return { config: Object.freeze(config), seedFiles: values.seed ?? [] };
}

/** Timeouts in milliseconds from flags or environment, over the mode's defaults. */
function serverLimits(mode: Config['mode'], pick: (flag: Flag, envName: string) => string | undefined): ServerLimits {
  const base = mode === 'hosted' ? HOSTED_SERVER_LIMITS : LOCAL_SERVER_LIMITS;
  const read = (flag: Flag, envName: string, fallback: number, name: string, min: number, max: number) => {
    const v = pick(flag, envName);
    return v === undefined ? fallback : integer(v, name, min, max);
  };
  const limits: ServerLimits = {
    headersTimeoutMs: read(
      'headers-timeout',
      'SANDBOX_HEADERS_TIMEOUT_MS',
      base.headersTimeoutMs,
      'headers timeout',
      100,
      3_600_000,
    ),
    requestTimeoutMs: read(
      'request-timeout',
      'SANDBOX_REQUEST_TIMEOUT_MS',
      base.requestTimeoutMs,
      'request timeout',
      100,
      3_600_000,
    ),
    keepAliveTimeoutMs: read(
      'keep-alive-timeout',
      'SANDBOX_KEEP_ALIVE_TIMEOUT_MS',
      base.keepAliveTimeoutMs,
      'keep-alive timeout',
      100,
      3_600_000,
    ),
    maxConnections: read(
      'max-connections',
      'SANDBOX_MAX_CONNECTIONS',
      base.maxConnections,
      'max connections',
      0,
      1_000_000,
    ),
  };
  // Node refuses a headers timeout longer than the request timeout: the headers are part of the request.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError('headers timeout must not exceed the request timeout');
  }
  return Object.freeze(limits);
}

/**
 * `--trust-proxy`: CIDRs (or single addresses) separated by commas, each in its normal form. An IPv4-mapped IPv6 range
 * (`::ffff:10.0.0.0/104`) becomes the IPv4 range it maps, since a client's address is compared in its IPv4 form.
 */
function trustedProxies(text: string | undefined): readonly string[] {
  if (text === undefined) return Object.freeze([]);
  const ranges = text.split(',').map((item) => {
    const range = cidr(item.trim());
    if (!range) {
      throw new ConfigError(
        `trust proxy must be CIDRs separated by commas (10.0.0.0/8,2001:db8::/32), got ${JSON.stringify(item.trim())}`,
      );
    }
    return range;
  });
  return Object.freeze([...new Set(ranges)]);
}

/** `10.0.0.0/8` for `10.1.2.3/8`, `10.1.2.3/32` for `10.1.2.3`; undefined when it is neither a CIDR nor an address. */
function cidr(text: string): string | undefined {
  const [address = '', bits, ...rest] = text.split('/');
  if (rest.length > 0 || (bits !== undefined && !/^\d{1,3}$/.test(bits))) return undefined;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) parsed = ipaddr.IPv4.parse(address);
  else if (ipaddr.IPv6.isValid(address) && !address.includes('%')) parsed = ipaddr.IPv6.parse(address);
  else return undefined;
  let prefix = bits === undefined ? (parsed.kind() === 'ipv4' ? 32 : 128) : Number(bits);
  if (prefix > (parsed.kind() === 'ipv4' ? 32 : 128)) return undefined;
  if (parsed instanceof ipaddr.IPv6 && parsed.isIPv4MappedAddress() && prefix >= 96) {
    parsed = parsed.toIPv4Address();
    prefix -= 96;
  }
  const bytes = parsed.toByteArray().map((b, i) => {
    const kept = Math.max(0, Math.min(8, prefix - 8 * i));
    return b & (0xff << (8 - kept)) & 0xff;
  });
  return `${ipaddr.fromByteArray(bytes).toString()}/${prefix}`;
}

function oneOf<T extends string>(value: string, allowed: readonly T[], name: string): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

function integer(value: string, name: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new ConfigError(`${name} must be an integer in ${min}..${max}`);
  return n;
}

function amount(value: string, name: string): number {
  const micros = parseDecimal(value);
  if (micros === null) throw new ConfigError(`${name} must be a non-negative decimal with at most 6 places`);
  return micros;
}

function rate(value: string): number {
  const ppm = parseRatePpm(value);
  if (ppm === null) throw new ConfigError('deposit fee rate must be a decimal in [0, 1), e.g. 0.02');
  return ppm;
}
