import { serve, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createApp } from './app.js';
import type { ServerDeps } from './http/server-deps.js';
import { warmUpTronweb } from './domain/chain/deposit-address.js';
import { startSandboxSweeper } from './domain/accounts/child-sandboxes.js';
import { guardConnections, type ConnectionLimits } from './http/connection-guard.js';
import { drainHttpServer } from './lifecycle/drain.js';
import { openDeps, type RuntimeOptions } from './wiring.js';
import { SqliteStore } from './store/sqlite.js';
import { bootstrapAccount, bootstrapFromSnapshot, type Bootstrap } from './bootstrap.js';
import { startCheckpointer, truncateWal, type Checkpointer } from './store/checkpointer.js';
import { releaseHeldBy } from './store/idempotency.js';
import { releaseClaimsOf } from './store/jobs.js';
import { handBackDeliveries } from './store/readiness.js';
import { startReadinessTakeover } from './webhooks/readiness-takeover.js';

export interface RunningServer {
  url: string;
  port: number;
  deps: ServerDeps;
  bootstrap: Bootstrap | undefined;
  /** Hosted mode: the connection caps, derived from the process's open-file limit at start. */
  connections: ConnectionLimits | undefined;
  /**
   * Graceful stop: no new connections, in-flight requests and background deliveries get `graceMs` to finish
   * (then they are cut and `cut` is true), then the WAL is checkpointed and the database closed.
   */
  close(graceMs?: number): Promise<{ cut: boolean }>;
}

/** Opens the database, prepares the ready account, listens, and starts the account-clock timer. */
export async function startServer(opts: RuntimeOptions): Promise<RunningServer> {
  const deps = await openDeps(opts);
  // The WAL checkpointer is SQLite's, for a file's database; PostgreSQL checkpoints itself.
  const sqliteFile = deps.store instanceof SqliteStore && deps.config.dbPath !== ':memory:' ? deps.store : undefined;
  let bootstrap: Bootstrap | undefined;
  try {
    bootstrap = deps.config.snapshotFile
      ? await bootstrapFromSnapshot(deps, deps.config.snapshotFile)
      : await bootstrapAccount(deps);
  } catch (err) {
    await deps.store.close();
    throw err;
  }
  // Counted among the database's instances before it answers, so that its share of each tenant budget is right
  // from its first request (PostgreSQL; on SQLite the process is the deployment).
  await deps.deployment.start();
  const app = createApp(deps);
  const limits = deps.config.server;
  const server: ServerType = await new Promise((resolve) => {
    const s = serve(
      {
        fetch: app.fetch,
        port: opts.config.port,
        hostname: opts.config.host,
        serverOptions: {
          headersTimeout: limits.headersTimeoutMs,
          requestTimeout: limits.requestTimeoutMs,
          // Node checks the two timeouts above on this period (30 s by default, longer than a hosted timeout).
          connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
        },
      },
      () => resolve(s),
    );
  });
  (server as Server).keepAliveTimeout = limits.keepAliveTimeoutMs;
  let connections: ConnectionLimits | undefined;
  if (deps.config.mode === 'hosted') {
    const guard = deps.connectionGuard!;
    guardConnections(server as Server, guard);
    connections = guard.limits;
  } else if (limits.maxConnections > 0) {
    (server as Server).maxConnections = limits.maxConnections;
  }
  cutSilentConnections(server as Server, limits.headersTimeoutMs);
  const { port } = server.address() as AddressInfo;
  // Its worker thread starts once the server answers, not before: a thread booting beside the start delays it, and
  // until it runs SQLite's own automatic checkpoint does the work.
  let checkpointer: Checkpointer | undefined;
  const startingCheckpointer = sqliteFile
    ? setTimeout(
        () => (checkpointer = startCheckpointer(sqliteFile.connection, deps.config.dbPath, deps.logger)),
        OFF_START_MS,
      )
    : undefined;
  startingCheckpointer?.unref();
  if (deps.config.backgroundJobs) deps.jobs.start();
  const stopSweeper = deps.config.backgroundJobs ? startSandboxSweeper(deps) : undefined;
  const stopTakeover = deps.config.backgroundJobs ? startReadinessTakeover(deps) : undefined;
  // Off the start-up path: the first deposit address then costs nothing extra, and the metrics' process figures
  // (event-loop lag among them) are measured from here on.
  setTimeout(() => {
    warmUpTronweb();
    app.metrics.warmUp();
  }, OFF_START_MS).unref();
  const host = opts.config.host.includes(':') ? `[${opts.config.host}]` : opts.config.host;
  let closing: Promise<{ cut: boolean }> | undefined;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    port,
    deps,
    bootstrap,
    connections,
    close: (graceMs = deps.config.shutdownGraceSeconds * 1000) =>
      (closing ??= (async () => {
        stopSweeper?.();
        stopTakeover?.();
        const draining = Promise.all([drainHttpServer(server as Server, graceMs), deps.jobs.stop(graceMs)]);
        // A request a `hold` fault keeps waits for a release that may never come: it is answered 503 now (it did not
        // run, and its key is released), so the drain waits only for requests that are running.
        deps.heldRequests.stop();
        const [http] = await draining;
        // Written before the database closes: a clean stop loses no request-log record, nor a queued write.
        await deps.transactions.flush();
        await handBackKeys(deps);
        await deps.requestLog.flush();
        await deps.deployment.stop();
        // Last before the store closes: an abandoned attempt has the least time left to record anything.
        await handBackClaims(deps);
        clearTimeout(startingCheckpointer);
        await checkpointer?.stop();
        if (sqliteFile) truncateWal(sqliteFile.connection);
        await deps.store.close();
        return http;
      })()),
  };
}

/**
 * The idempotency keys this instance still holds in flight (a request cut by the grace), handed back at once, so
 * other instances need not wait for their leases to run out. A database lost meanwhile leaves them to their leases.
 */
async function handBackKeys(deps: ServerDeps): Promise<void> {
  try {
    const released = await deps.transactions.run((tx) => releaseHeldBy(tx.db, deps.instance));
    if (released > 0) deps.logger.info({ released }, 'handed back the idempotency keys this instance held');
  } catch (err) {
    deps.logger.warn(
      { err },
      'could not hand back the idempotency keys this instance held: their leases will free them',
    );
  }
}

/**
 * The webhook attempts and readiness test deliveries this instance still has on the wire past the grace, handed back
 * so that another instance sends each at once rather than when its claim's lease runs out; this instance's attempt is
 * abandoned (what it would record is refused: its claim is gone, then the store). A database lost meanwhile leaves
 * them to their leases.
 */
async function handBackClaims(deps: ServerDeps): Promise<void> {
  try {
    const released = await deps.transactions.run(
      async (tx) => (await releaseClaimsOf(tx.db, deps.instance)) + (await handBackDeliveries(tx.db, deps.instance)),
    );
    if (released > 0) deps.logger.info({ released }, 'handed back the deliveries this instance had on the wire');
  } catch (err) {
    deps.logger.warn({ err }, 'could not hand back the deliveries this instance held: their leases will free them');
  }
}

/**
 * How long after listening the work kept off the start-up path begins (the WAL checkpointer, loading tronweb and
 * prom-client).
 */
const OFF_START_MS = 250;

/** Connections cut per event-loop turn: few enough that a turn of cuts costs other tenants little. */
const CUTS_PER_TURN = 32;
const REQUEST_TIMEOUT_ANSWER = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

/**
 * Cuts a connection that has not sent a whole request head within the headers timeout (408, as Node does), a few
 * per event-loop turn. Node alone checks every connection in one pass per `connectionsCheckingInterval`, so a
 * thousand silent connections opened together were all cut in one pass, stalling every tenant (bench:hosted,
 * bench/code-figures.md). Here each connection has its own timer, cleared by its first request; Node's check stays as the
 * backstop, and for the later requests of a keep-alive connection.
 */
function cutSilentConnections(server: Server, headersTimeoutMs: number): void {
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  const due: Socket[] = [];
  const cutSome = () => {
    for (const socket of due.splice(0, CUTS_PER_TURN)) {
      if (!socket.destroyed) socket.end(REQUEST_TIMEOUT_ANSWER, () => socket.destroy());
    }
    if (due.length > 0) setImmediate(cutSome);
  };
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => {
      if (due.push(socket) === 1) setImmediate(cutSome);
    }, headersTimeoutMs);
    timer.unref();
    timers.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  server.on('request', (req: { socket: Socket }) => {
    clearTimeout(timers.get(req.socket));
    timers.delete(req.socket);
  });
}
