import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';

// Background jobs (webhook deliveries) wait on the network; shutdown lets one under way finish, within the grace.

let dir: string;
let server: RunningServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-deliveries-'));
  server = await startServer({
    config: Object.freeze({ ...DEFAULT_CONFIG, port: 0, dbPath: join(dir, 'sandbox.db'), apiKey: 'k-deliveries-1' }),
  });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Registers a background job, scheduled due now, that runs until `release()` (or for `ms` when given); `started`
 * resolves when it has begun.
 */
async function slowDelivery(
  ms?: number,
): Promise<{ started: Promise<void>; finished: { value: boolean }; release: () => void }> {
  const finished = { value: false };
  let markStarted!: () => void;
  const started = new Promise<void>((r) => (markStarted = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const { deps } = server;
  deps.jobs.register('test.slow-delivery', {
    background: true,
    run: async () => {
      markStarted();
      const timer = ms === undefined ? undefined : setTimeout(release, ms);
      await released;
      clearTimeout(timer);
      finished.value = true;
    },
  });
  // Scheduling a background job asks the timer to run it at once.
  await deps.transactions.run((tx) =>
    deps.jobs.schedule(tx.db, server.bootstrap!.accountId, 'test.slow-delivery', 'x', 0),
  );
  return { started, finished, release };
}

describe('shutdown and background deliveries', () => {
  it('waits for a delivery under way before closing the database', async () => {
    const delivery = await slowDelivery(300);
    await delivery.started;
    const result = await server.close(60_000);
    expect(delivery.finished.value).toBe(true);
    expect(result.cut).toBe(false);
    expect(server.deps.store.open).toBe(false);
  });

  it('stops waiting for a delivery when the grace is over', async () => {
    // The delivery never ends by itself: close() returning at all proves the grace bounded the wait.
    const delivery = await slowDelivery();
    await delivery.started;
    await server.close(200);
    expect(delivery.finished.value).toBe(false);
    expect(server.deps.store.open).toBe(false);
    delivery.release();
  });
});
