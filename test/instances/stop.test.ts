import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { postTo, startInstances, type Instances } from '../helpers/instances.js';
import { peekPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { behaviours, startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

// Issue 44, "Stop and die well": on SIGTERM an instance stops taking requests, finishes those running, and hands the
// keys and webhook attempts it holds back at once (no lease to wait out); killed outright, it loses nothing it
// acknowledged.

let deployment: Instances | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
  await receiver?.close();
  receiver = undefined;
});

/** The rows a statement answers on the deployment's database, read on a connection of the test's own. */
async function rowsOf<T>(db: string, sql: string, params: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

const post = postTo;

const CREATE = { amount: 10, currency: 'USDT' };

const inFlight = (db: string, key: string) =>
  waitFor(`key ${key} in flight`, () =>
    peekPostgres(db, `SELECT 1 FROM idempotency_keys WHERE key = '${key}' AND state = 'in_flight'`),
  );

async function fault(url: string, apiKey: string, rule: Record<string, unknown>) {
  expect(
    (await post(url, '/sandbox/v1/faults', apiKey, { rules: [{ path: '/v1/card/create', ...rule }] })).status,
  ).toBe(200);
}

describe('Many instances: stop and die well', () => {
  it('a request running at SIGTERM is answered; the instance then exits 0 and another replays its key', async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const [a, b] = deployment.instances as [Instances['instances'][0], Instances['instances'][0]];
    const { apiKey } = await deployment.newAccount(100);
    // A latency keeps the request running (its key reserved) for a while: long enough to stop the instance meanwhile.
    await fault(a.url, apiKey, { latencyMs: 3000 });
    const pending = post(a.url, '/v1/card/create', apiKey, CREATE, 'running');
    await inFlight(deployment.db, 'running');
    const exited = a.kill('SIGTERM');
    const answer = await pending;
    expect(answer.status).toBe(200);
    expect(await exited).toEqual({ code: 0, signal: null });
    const replay = await post(b.url, '/v1/card/create', apiKey, CREATE, 'running');
    expect([replay.status, replay.replayed, replay.body]).toEqual([200, true, answer.body]);
  });

  it('a key held by an instance that stops is usable at once from another; the held request is answered 503 and did not run', async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const [a, b] = deployment.instances as [Instances['instances'][0], Instances['instances'][0]];
    const { apiKey } = await deployment.newAccount(100);
    await fault(a.url, apiKey, { hold: true });
    const pending = post(a.url, '/v1/card/create', apiKey, CREATE, 'held');
    await inFlight(deployment.db, 'held');
    expect((await post(b.url, '/v1/card/create', apiKey, CREATE, 'held')).body.code).toBe(4212);
    const exited = a.kill('SIGTERM');
    const answer = await pending;
    expect([answer.status, answer.body.code, answer.retryAfter]).toEqual([503, 503, '1']);
    expect(await exited).toEqual({ code: 0, signal: null });
    // The default lease (15 s) has not run out: the key is free because the stopping instance handed it back.
    const retry = await post(b.url, '/v1/card/create', apiKey, CREATE, 'held');
    expect([retry.status, retry.replayed]).toEqual([200, false]);
    const assets = await post(b.url, '/v1/wallet/assetList', apiKey);
    expect(assets.body.assetList[0].availableAmount).toBe('90');
  });

  it('a webhook attempt still on the wire after the grace is handed back at SIGTERM: another instance sends it at once, not when its lease runs out', async (ctx) => {
    // The lease as long as it may be, the receiver's answer awaited for ten minutes: only the hand-back frees it.
    const env = { SANDBOX_JOB_LEASE_MS: '30000', SANDBOX_SHUTDOWN_GRACE: '1', SANDBOX_WEBHOOK_TIMEOUT_MS: '600000' };
    deployment = await startInstances(ctx, 2, { env });
    const { db, instances, urls } = deployment;
    receiver = await startReceiver();
    receiver.queue.push(behaviours.hang);
    const { accountId, apiKey } = await deployment.newAccount(100);
    const put = await fetch(`${urls[0]}/v1/webhook`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ url: receiver.url }),
    });
    expect(put.status).toBe(200);
    expect((await post(urls[0]!, '/v1/card/create', apiKey, CREATE)).status).toBe(200);
    const rx = receiver;
    await waitFor('the first attempt on the wire', () => rx.received.length === 1);
    const [claim] = await rowsOf<{ id: string; claimed_by: string; claim_until_ms: string }>(
      db,
      'SELECT id, claimed_by, claim_until_ms FROM jobs WHERE account_id = $1 AND claimed_by IS NOT NULL',
      [accountId],
    );
    const ids = await Promise.all(
      urls.map(async (u) => ((await (await fetch(`${u}/healthz`)).json()) as { instance: string }).instance),
    );
    const sender = ids.indexOf(claim!.claimed_by);
    expect(sender).toBeGreaterThanOrEqual(0);

    expect(await instances[sender]!.kill('SIGTERM')).toEqual({ code: 0, signal: null });
    // Decided by state: when the sender has exited, its claim is no longer its own, though its lease still runs.
    expect(Number(claim!.claim_until_ms)).toBeGreaterThan(Date.now());
    const after = await rowsOf<{ claimed_by: string | null }>(db, 'SELECT claimed_by FROM jobs WHERE id = $1', [
      claim!.id,
    ]);
    expect(after.every((r) => r.claimed_by !== claim!.claimed_by)).toBe(true);

    // The survivor sends the abandoned attempt again, then the account's other events, in the order they happened.
    const written = (
      await rowsOf<{ id: string }>(db, 'SELECT id FROM events WHERE account_id = $1 ORDER BY seq', [accountId])
    ).map((r) => r.id);
    await waitFor('every event delivered by the survivor', () => rx.received.length >= written.length + 1);
    expect(rx.received.map((r) => r.body.id)).toEqual([written[0], ...written]);
    const deliveries = await waitFor('every delivery recorded', async () => {
      const rows = await rowsOf<{ state: string; attempts: number }>(
        db,
        'SELECT state, attempts::int AS attempts FROM webhook_deliveries WHERE account_id = $1 ORDER BY id',
        [accountId],
      );
      return rows.every((r) => r.state === 'delivered') && rows;
    });
    // The abandoned attempt recorded nothing: each delivery is one attempt, the survivor's.
    expect(deliveries.map((r) => r.attempts)).toEqual(written.map(() => 1));
  });

  it('killed under keyed load, an instance loses no acknowledged write: each is there exactly once, read from another', async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const [a, b] = deployment.instances as [Instances['instances'][0], Instances['instances'][0]];
    const N = 40;
    const { apiKey } = await deployment.newAccount(N * 10);
    const acked = new Map<string, string>();
    const unacked: string[] = [];
    let killed: Promise<unknown> | undefined;
    // Four clients, each sending its keys in turn, alternately to either instance; A is killed once ten are answered.
    const client = async (c: number) => {
      for (let i = c; i < N; i += 4) {
        const key = `load-${i}`;
        const url = i % 2 === 0 ? a.url : b.url;
        try {
          const res = await post(url, '/v1/card/create', apiKey, CREATE, key);
          if (res.status === 200) acked.set(key, res.body.cardId as string);
          else unacked.push(key);
        } catch {
          unacked.push(key);
        }
        if (acked.size >= 10) killed ??= a.kill('SIGKILL');
      }
    };
    await Promise.all([0, 1, 2, 3].map(client));
    await killed;
    expect(acked.size).toBeGreaterThanOrEqual(10);
    // Every acknowledged write, read back through the living instance: its key replays the same card.
    for (const [key, cardId] of acked) {
      const replay = await post(b.url, '/v1/card/create', apiKey, CREATE, key);
      expect([replay.status, replay.replayed, replay.body.cardId]).toEqual([200, true, cardId]);
    }
    // The client retries what it never heard back about: each executes once, or replays what ran before the kill.
    for (const key of unacked) {
      const retry = await post(b.url, '/v1/card/create', apiKey, CREATE, key);
      expect(retry.status).toBe(200);
      acked.set(key, retry.body.cardId as string);
    }
    expect(acked.size).toBe(N);
    const cards = (await post(b.url, '/v1/card/list', apiKey, { pageSize: 100 })).body.cardList as { cardId: string }[];
    expect(cards.map((c) => c.cardId).sort()).toEqual([...acked.values()].sort());
    const assets = await post(b.url, '/v1/wallet/assetList', apiKey);
    expect(assets.body.assetList[0].availableAmount).toBe('0');
  });
});
