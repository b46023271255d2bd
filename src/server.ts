import { serve, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import type { Config } from './config.js';
import type { ServerDeps } from './server-deps.js';
import { warmUpTronweb } from './domain/deposit-address.js';
import { requestLogOf } from './domain/request-log.js';
import { startSandboxSweeper } from './domain/sandboxes.js';
import { drainHttpServer } from './lifecycle/drain.js';
import { bootstrapAccount, createDeps, type Bootstrap, type RuntimeOptions } from './runtime.js';
import { startCheckpointer } from './store/checkpointer.js';

export interface RunningServer {
  url: string;
  port: number;
  deps: ServerDeps;
  bootstrap: Bootstrap | undefined;
  /**
   * Graceful stop: no new connections, in-flight requests and background deliveries get `graceMs` to finish
   * (then they are cut and `cut` is true), then the WAL is checkpointed and the database closed.
   */
  close(graceMs?: number): Promise<{ cut: boolean }>;
}

/** Opens the database, prepares the ready account, listens, and starts the account-clock timer. */
export async function startServer(opts: RuntimeOptions): Promise<RunningServer> {
  const deps = createDeps(opts);
  const file = deps.config.dbPath !== ':memory:';
  const checkpointer = file ? startCheckpointer(deps.db, deps.config.dbPath, deps.logger) : undefined;
  const bootstrap = bootstrapAccount(deps);
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
  if (limits.maxConnections > 0) (server as Server).maxConnections = limits.maxConnections;
  const { port } = server.address() as AddressInfo;
  if (deps.config.backgroundJobs) deps.jobs.start();
  const stopSweeper = deps.config.backgroundJobs ? startSandboxSweeper(deps) : undefined;
  // Off the start-up path: the first deposit address then costs nothing extra.
  setTimeout(warmUpTronweb, 250).unref();
  const host = opts.config.host.includes(':') ? `[${opts.config.host}]` : opts.config.host;
  let closing: Promise<{ cut: boolean }> | undefined;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    port,
    deps,
    bootstrap,
    close: (graceMs = deps.config.shutdownGraceSeconds * 1000) =>
      (closing ??= (async () => {
        stopSweeper?.();
        const [http] = await Promise.all([drainHttpServer(server as Server, graceMs), deps.jobs.stop(graceMs)]);
        // Written before the database closes: a clean stop loses no request-log record.
        requestLogOf(deps).flush();
        await checkpointer?.stop();
        if (file) deps.db.pragma('wal_checkpoint(TRUNCATE)');
        deps.db.close();
        return http;
      })()),
  };
}

export type { Config };
