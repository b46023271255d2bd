// A sandbox server in its own process, for tests that kill it with SIGKILL. Serves the real app on a file
// database; the test-only header `x-test-latency-ms` sets the idempotency layer's wait (as the faults
// helper's latencyMs does), so a keyed request can be caught in flight. Prints `PORT <n>` once listening.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../src/app.js';
import { DEFAULT_CONFIG } from '../../../src/config.js';
import type { AppEnv } from '../../../src/http/context.js';
import { createDeps } from '../../../src/runtime.js';

const [dbPath, adminToken] = process.argv.slice(2) as [string, string];
const deps = createDeps({
  config: Object.freeze({ ...DEFAULT_CONFIG, dbPath, adminToken, bootstrapAccount: false, backgroundJobs: false }),
});
const outer = new Hono<AppEnv>();
outer.use('*', async (c, next) => {
  const ms = c.req.header('x-test-latency-ms');
  if (ms) c.set('injectedLatencyMs', Number(ms));
  await next();
});
outer.route('/', createApp(deps));
const server = serve({ fetch: outer.fetch, port: 0, hostname: '127.0.0.1' }, () => {
  process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`);
});
// The test holds our stdin open; when the test process dies, the pipe closes and so do we.
process.stdin.on('end', () => process.exit(1));
process.stdin.resume();
