import { connect, type Socket } from 'node:net';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logging/logger.js';
import { startServer, type RunningServer } from '../../src/server.js';

// A real hosted-mode server in this process, on a loopback port chosen by the system: timeouts, connection caps
// and client aborts live below app.request(), in Node's HTTP server.

export const HOSTED_ADMIN_TOKEN = 'hosted-test-admin-token';

export interface HostedServer extends RunningServer {
  /** Every log line written so far, as text. */
  logs: { text: string; records: Record<string, unknown>[] };
  /** A fresh account through the operator API; returns its API key. */
  newApiKey(): Promise<string>;
  /** A raw TCP connection to the server, resolved once connected. */
  socket(): Promise<Socket>;
}

export async function startHosted(
  limits: Partial<Config['server']> = {},
  logLevel = 'info',
  rateLimitPerSecond = 1_000,
  config: Partial<Config> = {},
): Promise<HostedServer> {
  const logs = { text: '', records: [] as Record<string, unknown>[] };
  const logger = createLogger({
    level: logLevel,
    destination: {
      write(line: string) {
        logs.text += line;
        logs.records.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  });
  // The configuration `serve --mode hosted` starts with, as a partner's operator would get it.
  const { config: hosted } = loadConfig(['--mode', 'hosted', '--admin-token', HOSTED_ADMIN_TOKEN], {});
  const server = await startServer({
    config: Object.freeze({
      ...hosted,
      dbPath: ':memory:',
      port: 0,
      bootstrapAccount: false,
      backgroundJobs: false,
      rateLimitPerSecond,
      server: { ...hosted.server, ...limits },
      ...config,
    }),
    logger,
  });
  return Object.assign(server, {
    logs,
    async newApiKey() {
      const res = await fetch(`${server.url}/admin/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${HOSTED_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ depositAddress: null, balance: 100 }),
      });
      if (res.status !== 201) throw new Error(`account creation failed: ${res.status}`);
      return ((await res.json()) as { apiKey: string }).apiKey;
    },
    socket() {
      return new Promise<Socket>((resolve, reject) => {
        const s = connect(server.port, '127.0.0.1', () => resolve(s));
        s.once('error', reject);
      });
    },
  });
}

/** Resolves once a condition on the server's log holds (waits on the condition, not on a duration). */
export async function logged(server: HostedServer, predicate: (r: Record<string, unknown>) => boolean) {
  for (;;) {
    const hit = server.logs.records.find(predicate);
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 20)); // a polling period, not a wait for a timer
  }
}
