import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { configSecrets, type Config } from './config.js';
import { pathsJudgedAs } from './contracts/files.js';
import { ensureDefaultBin } from './domain/cards/bins.js';
import { registerCardJobs } from './domain/cards/cards.js';
import { EventObservers } from './domain/events/types.js';
import { HeldRequests } from './domain/faults/held-requests.js';
import { Deployment } from './domain/kernel/deployment.js';
import { stillHeldBy } from './domain/faults/shared-holds.js';
import { Ids, type RandomSource } from './domain/kernel/ids.js';
import { FairShare, OneAtATime } from './domain/kernel/fair-share.js';
import { JobRunner } from './domain/kernel/jobs.js';
import { silentLogger, type Logger } from './domain/kernel/logger.js';
import { ServerSecret } from './domain/kernel/secrets.js';
import { registerSimulation, SIMULATION_EVENT_ENRICHERS } from './domain/network/simulation.js';
import { ClientAddresses } from './http/client-address.js';
import { ConnectionGuard, connectionLimits, firstRequestMs } from './http/connection-guard.js';
import { FailureThrottle } from './http/failure-throttle.js';
import { RateLimits } from './http/rate-limits.js';
import { TenantHoldings } from './http/tenant-holdings.js';
import type { ServerDeps } from './http/server-deps.js';
import { Meter } from './metering/meter.js';
import { Redactor } from './redaction/redactor.js';
import { RequestLog } from './request-log/log.js';
import { watchAccountRows } from './store/accounts.js';
import {
  isPostgresUrl,
  lockFirstStart,
  openPostgres,
  openSqlite,
  storedSecretText,
  type Db,
  type Store,
} from './store/db.js';
import { releaseAllInFlight, releaseLapsedInFlight } from './store/idempotency.js';
import { releaseClaimsOfTheDead } from './store/jobs.js';
import { handBackDeliveries } from './store/readiness.js';
import { TransactionRunner } from './store/transaction-runner.js';
import { registerWebhooks, restoreWebhookAttempts } from './webhooks/index.js';
import { newInstanceId } from './http/instance.js';

// The one wiring module: every piece of a server's state is built here, once, as a named member of its deps. What
// each member holds, and whether it is shared by every server on the database or kept by this process alone, is
// said where its type is declared: the domain's members in domain/kernel/deps.ts, the server's in
// http/server-deps.ts. No module keeps state of its own beside them (a memo of a pure function, named a cache, may).

export interface RuntimeOptions {
  config: Config;
  logger?: Logger;
  wallClock?: () => number;
  random?: RandomSource;
  /** This process's id, when its logger already names it (serve); else a new one. */
  instance?: string;
}

/** A store opened, and the server secret it goes with. */
interface OpenedStore {
  store: Store;
  secret: ServerSecret;
}

/**
 * Builds every member over a store and starts preparing its first-start state (`deps.ready`). No network, no
 * timers. Without `opened`, the SQLite database `config.dbPath` (a file or :memory:) is opened here. Built in
 * dependency order: the store, then what needs only the store, then the job kinds (closures over the finished
 * deps), so no member is bound late.
 */
export function createDeps(opts: RuntimeOptions, opened?: OpenedStore): ServerDeps & { ready: Promise<void> } {
  const { config } = opts;
  const store = opened?.store ?? openSqlite(config.dbPath);
  const secret = opened?.secret ?? sqliteSecret(config);
  const logger = opts.logger ?? silentLogger;
  const wallClock = opts.wallClock ?? Date.now;
  const fairShare = new FairShare();
  const clientAddresses = new ClientAddresses(config.trustProxy);
  const instance = opts.instance ?? newInstanceId();
  // What the runner gives the work of a transaction: these deps with `db` that transaction, and a runner of its
  // savepoints (every other member is the same object).
  const scope = (tx: Db): ServerDeps => {
    const scoped = Object.create(deps) as ServerDeps;
    scoped.db = tx;
    scoped.transactions = new TransactionRunner(tx, scope);
    return scoped;
  };
  const transactions = new TransactionRunner<ServerDeps>(store, scope);
  const deployment = new Deployment(
    store.dialect,
    (work) => transactions.run(({ db }) => work(db)),
    instance,
    wallClock,
    logger,
  );
  const share = (bound: number) => deployment.share(bound);
  const deps: ServerDeps = {
    db: store,
    store,
    get outside() {
      return deps;
    },
    transactions,
    config,
    instance,
    secret,
    ids: new Ids(opts.random),
    wallClock,
    // A claim's lease is counted in real time, whatever wall clock a test gives the rest (domain/kernel/jobs.ts).
    jobs: new JobRunner({
      logger,
      wallClock,
      fairShare,
      root: () => deps,
      instance,
      leaseMs: config.jobLeaseMs,
      leaseClock: Date.now,
    }),
    fairShare,
    oneAtATime: new OneAtATime(),
    heldRequests: new HeldRequests(wallClock, () => stillHeldBy(deps, deps.instance)),
    events: new EventObservers(),
    logger,
    meter: new Meter(),
    redactor: new Redactor(configSecrets(config)),
    eventEnrichers: SIMULATION_EVENT_ENRICHERS,
    readinessPaths: { keyedWrites: pathsJudgedAs('keyed-write'), notJudged: pathsJudgedAs('not-judged') },
    // Lets a request take its account clock from the row it authenticated with (domain/kernel/clock.ts, `now`).
    accountRows: watchAccountRows(store),
    keyCache: new Map(),
    keyPurges: { writes: 0 },
    faultHint: { armed: undefined },
    readinessWindows: { byAccount: undefined },
    readinessSending: new Map(),
    requestLog: undefined!,
    rateLimits: new RateLimits(),
    tenantHoldings: new TenantHoldings(),
    deployment,
    clientAddresses,
    connectionGuard:
      config.mode === 'hosted'
        ? new ConnectionGuard(connectionLimits(config.server.maxConnections), {
            trusts: (address) => clientAddresses.trusts(address),
            firstRequestMs: firstRequestMs(config.server.headersTimeoutMs),
          })
        : undefined,
    // Each instance grants its share of the deployment's bound on guesses, as of every tenant budget.
    operatorThrottle: new FailureThrottle(wallClock, undefined, share),
    keySignInThrottle: new FailureThrottle(wallClock, undefined, share),
  };
  deps.requestLog = new RequestLog(deps);
  registerCardJobs(deps);
  registerWebhooks(deps);
  registerSimulation(deps);
  return Object.assign(deps, { ready: prepareStore(deps) });
}

/** The first-start state: the default BIN, and the keys a crash left in flight released. */
async function prepareStore(deps: ServerDeps): Promise<void> {
  await deps.transactions.run(async (deps) => {
    await lockFirstStart(deps.db);
    await ensureDefaultBin(deps);
  });
  // Before the attempts are restored: a SQLite file has one process, so every claim on it (a webhook attempt's, a
  // readiness delivery's) is a dead process's, and runs again now. On PostgreSQL other instances may be running
  // theirs: each is left to its lease (or handed back by an instance that stops).
  if (deps.store.dialect === 'sqlite')
    await deps.transactions.run(async (deps) => {
      await releaseClaimsOfTheDead(deps.db);
      await handBackDeliveries(deps.db);
    });
  await restoreWebhookAttempts(deps);
  // Execution and completion of a keyed request commit together, so a key still in flight after a crash
  // never executed: releasing it lets the client's retry run. A SQLite file has one process, so every key in flight
  // there was left by a crash; on PostgreSQL other instances hold theirs, and only keys whose lease has run out are
  // left (the rest are freed when their lease runs out, or at once by an instance that stops).
  const released = await deps.transactions.run((deps) =>
    deps.db.dialect === 'postgres' ? releaseLapsedInFlight(deps.db, deps.wallClock()) : releaseAllInFlight(deps.db),
  );
  if (released > 0) deps.logger.warn({ released }, 'released idempotency keys left in flight by a crash');
}

/** Opens the store `config.dbPath` names (a SQLite file, :memory:, or a PostgreSQL URL) and builds the deps on it. */
export async function openDeps(opts: RuntimeOptions): Promise<ServerDeps> {
  const deps = createDeps(opts, await openStore(opts.config));
  await deps.ready;
  return deps;
}

/** SQLite's server secret: configured text, else `<db>.secret` (created once, mode 0600), else random for :memory:. */
function sqliteSecret(config: Config): ServerSecret {
  if (config.secret) return ServerSecret.fromText(config.secret);
  if (config.dbPath === ':memory:') return ServerSecret.random();
  const file = `${config.dbPath}.secret`;
  if (!existsSync(file)) {
    writeFileSync(file, ServerSecret.randomText(), { mode: 0o600, flag: 'wx' });
  }
  return new ServerSecret(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url'));
}

/**
 * The store `config.dbPath` names and its server secret: a SQLite file or :memory: (the secret from the
 * configuration, else a file beside the database), or a PostgreSQL URL (the secret from the configuration, else the
 * one the database holds, made once by the first server to ask).
 */
async function openStore(config: Config): Promise<OpenedStore> {
  if (!isPostgresUrl(config.dbPath)) return { store: openSqlite(config.dbPath), secret: sqliteSecret(config) };
  const store = await openPostgres(config.dbPath, config.postgres);
  if (config.secret) return { store, secret: ServerSecret.fromText(config.secret) };
  return {
    store,
    secret: new ServerSecret(Buffer.from(await storedSecretText(store, ServerSecret.randomText()), 'base64url')),
  };
}
