// A sandbox server in its own process, for tests that kill it with SIGKILL. Serves the real app on a SQLite file
// or a PostgreSQL URL; prints `PORT <n>` once listening (after its first-start work: keys left in flight released, on PostgreSQL those
// whose lease has run out).
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../../src/app.js';
import { DEFAULT_CONFIG } from '../../../src/config.js';
import { openDeps } from '../../../src/wiring.js';

const [dbPath, adminToken] = process.argv.slice(2) as [string, string];
const deps = await openDeps({
  // A short lease: on PostgreSQL a key the killed server held is free once its lease has run out.
  config: Object.freeze({
    ...DEFAULT_CONFIG,
    dbPath,
    adminToken,
    bootstrapAccount: false,
    backgroundJobs: false,
    idempotencyLeaseMs: 1000,
  }),
});
const server = serve({ fetch: createApp(deps).fetch, port: 0, hostname: '127.0.0.1' }, () => {
  process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`);
});
// The test holds our stdin open; when the test process dies, the pipe closes and so do we.
process.stdin.on('end', () => process.exit(1));
process.stdin.resume();
