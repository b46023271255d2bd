import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { RECEIVER_CHECKS } from '../../src/domain/readiness/catalogue.js';
import { call, post } from '../helpers/http-call.js';
import { startInstances, type Instances } from '../helpers/instances.js';
import { waitFor } from '../helpers/wait.js';
import { behaviours, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// Seen from anywhere, readiness's part: a run's test deliveries are rows owed their attempts, each claimed by the
// instance sending it (readiness_deliveries, migration 071), not promises in its memory. An instance that stops with
// them on the wire hands them back, and another sends them at once; the run's report is read, and its stop waited
// for, from any instance. Decided by state: the claims as the database holds them, the receiver's arrivals.

let deployment: Instances | undefined;
const receivers: Receiver[] = [];
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
  for (const r of receivers.splice(0)) await r.close();
});

type Body = Record<string, any>;

async function claimsOf(db: string, runId: string) {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    const sql =
      'SELECT check_id, pending::int AS pending, claimed_by FROM readiness_deliveries WHERE run_id = $1 ORDER BY seq';
    return (await client.query<{ check_id: string; pending: number | null; claimed_by: string | null }>(sql, [runId]))
      .rows;
  } finally {
    await client.end();
  }
}

/**
 * Two instances with `env`; a run started on A whose test deliveries are all on the wire from A, held by the receiver
 * under test (which answers 200 from then on), A holding every claim.
 */
async function runOnTheWire(ctx: Parameters<typeof startInstances>[0], env: Record<string, string>) {
  deployment = await startInstances(ctx, 2, { env });
  const { db, urls } = deployment;
  const [a] = urls as [string, string];
  const endpoint = await startReceiver();
  const tested = await startReceiver();
  receivers.push(endpoint, tested);
  // The run's bodies are signed wrongly on purpose; the receiver under test holds every one until told otherwise.
  tested.validate = false;
  tested.fallback = behaviours.hang;
  const { apiKey } = await deployment.newAccount(100);
  expect((await call(a, apiKey, 'PUT', '/v1/webhook', { url: endpoint.url })).status).toBe(200);
  const started = await post(a, apiKey, '/sandbox/v1/readiness/run', { webhookUrl: tested.url });
  expect(started.status).toBe(200);
  const runId = started.body.runId as string;
  await waitFor('every test delivery on the wire', () => tested.received.length === RECEIVER_CHECKS.length);
  const idOfA = ((await (await fetch(`${a}/healthz`)).json()) as { instance: string }).instance;
  expect((await claimsOf(db, runId)).map((c) => [c.pending, c.claimed_by])).toEqual(
    RECEIVER_CHECKS.map(() => [1, idOfA]),
  );
  tested.fallback = behaviours.ok;
  return { apiKey, runId, idOfA, tested };
}

/** The run's report from `url`'s readiness/stop: every delivery sent again and recorded, each attempt answered 200. */
async function expectEveryDeliveryRecorded(url: string, db: string, apiKey: string, runId: string, tested: Receiver) {
  const stopped = await post(url, apiKey, '/sandbox/v1/readiness/stop', { runId });
  expect(stopped.status).toBe(200);
  expect(stopped.body.status).toBe('done');
  const attempts = Object.fromEntries(
    (stopped.body.deliveries as Body[]).map((d) => [d.check, (d.attempts as Body[]).map((t) => t.status)]),
  );
  // The duplicate twice: its first attempt, abandoned on the wire, was never recorded.
  expect(attempts).toEqual(
    Object.fromEntries(RECEIVER_CHECKS.map((c) => [c, c === 'receiver-accepts-duplicate' ? [200, 200] : [200]])),
  );
  expect((await claimsOf(db, runId)).every((c) => c.pending === null && c.claimed_by === null)).toBe(true);
  // The same event ids went out again, from the survivor.
  const ids = tested.received.map((r) => r.body.id);
  expect(new Set(ids.slice(RECEIVER_CHECKS.length))).toEqual(new Set(ids.slice(0, RECEIVER_CHECKS.length)));
}

describe('Many instances: readiness', () => {
  it("a run's test deliveries on the wire when its instance stops are handed back and sent by another, whose stop reports them", async (ctx) => {
    // The lease as long as it may be, the receiver's answer awaited for ten minutes: only the hand-back frees them.
    const env = { SANDBOX_JOB_LEASE_MS: '30000', SANDBOX_SHUTDOWN_GRACE: '1', SANDBOX_WEBHOOK_TIMEOUT_MS: '600000' };
    const { apiKey, runId, idOfA, tested } = await runOnTheWire(ctx, env);
    const { db, instances, urls } = deployment!;
    expect(await instances[0]!.kill('SIGTERM')).toEqual({ code: 0, signal: null });
    // Decided by state: once A has exited, none of the run's deliveries is its own, though their leases still run.
    expect((await claimsOf(db, runId)).every((c) => c.claimed_by !== idOfA)).toBe(true);
    await expectEveryDeliveryRecorded(urls[1]!, db, apiKey, runId, tested);
  });

  it("a run's test deliveries on the wire when its instance is killed are taken over by another once their claims run out", async (ctx) => {
    const env = { SANDBOX_JOB_LEASE_MS: '2000', SANDBOX_WEBHOOK_TIMEOUT_MS: '600000' };
    const { apiKey, runId, tested } = await runOnTheWire(ctx, env);
    const { db, instances, urls } = deployment!;
    await instances[0]!.kill('SIGKILL');
    // B's stop waits until every delivery is recorded: by B, which took each over once A stopped renewing its claim.
    await expectEveryDeliveryRecorded(urls[1]!, db, apiKey, runId, tested);
  });
});
