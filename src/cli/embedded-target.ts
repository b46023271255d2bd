import { randomBytes } from 'node:crypto';
import { DEFAULT_CONFIG, type Config } from '../config.js';
import type { Target } from '../scenario/target.js';
import { startServer } from '../server.js';

/**
 * A private sandbox on `:memory:` for one scenario file, started by the one server start-up (server.ts) on an
 * ephemeral loopback port with background jobs on (webhook deliveries and frozen clocks' due jobs run from its
 * timer). Its admin token is random and never shown. The command line hands it to the scenario runner, which
 * itself starts no server: it only talks HTTP to one.
 */
export async function embeddedTarget(overrides: Partial<Config> = {}): Promise<Target> {
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
  const server = await startServer({ config });
  return {
    baseUrl: server.url,
    adminToken,
    apiKey: undefined,
    close: async () => void (await server.close(0)),
  };
}
