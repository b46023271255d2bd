import { serve, type ServerType } from '@hono/node-server';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createApp } from '../app.js';
import { DEFAULT_CONFIG, type Config } from '../config.js';
import { createDeps } from '../runtime.js';

/** Where a scenario file runs: a sandbox's base URL and the credentials the runner may use on it. */
export interface Target {
  baseUrl: string;
  adminToken: string | undefined;
  apiKey: string | undefined;
  /** The key may create child sandboxes there: each file then runs in a child it deletes after. */
  childSandboxes?: boolean;
  close(): Promise<void>;
}

/** A remote (or already running) sandbox; closing it does nothing. */
export function remoteTarget(baseUrl: string, apiKey?: string, adminToken?: string, childSandboxes = false): Target {
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey, adminToken, childSandboxes, close: async () => {} };
}

/**
 * A private sandbox on `:memory:` for one file, listening on an ephemeral loopback port with background jobs on
 * (webhook deliveries and frozen clocks' due jobs run from its timer). Its admin token is random and never shown.
 */
export async function inProcessTarget(overrides: Partial<Config> = {}): Promise<Target> {
  const adminToken = randomBytes(18).toString('base64url');
  const config: Config = Object.freeze({
    ...DEFAULT_CONFIG,
    host: '127.0.0.1',
    port: 0,
    dbPath: ':memory:',
    adminToken,
    bootstrapAccount: false,
    backgroundJobs: true,
    ...overrides,
  });
  const deps = createDeps({ config });
  const app = createApp(deps);
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  deps.jobs.start();
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    adminToken,
    apiKey: undefined,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await deps.jobs.stop(0);
      deps.db.close();
    },
  };
}
