import { afterEach, describe, expect, it } from 'vitest';
import { postTo, startInstances, type Instances, type KeyedAnswer } from '../helpers/instances.js';
import { peekPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';

// Issue 44, "Idempotency across instances": a key is one operation across every instance on the database. A key is
// in flight only while its request waits between reserving it and executing (here, held by a `hold` fault); the
// instance holding it keeps a lease on it that the others read, renewed while it lives.

let deployment: Instances | undefined;
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
});

type Answer = Omit<KeyedAnswer, 'retryAfter'>;

/** The answers this file compares whole: status, replayed and body. */
async function post(...call: Parameters<typeof postTo>): Promise<Answer> {
  const { status, replayed, body } = await postTo(...call);
  return { status, replayed, body };
}

const CREATE = { amount: 10, currency: 'USDT' };

/** The account's wallet and cards, read through `url`. */
async function holdings(url: string, apiKey: string) {
  const assets = await post(url, '/v1/wallet/assetList', apiKey);
  const cards = await post(url, '/v1/card/list', apiKey);
  return { available: assets.body.assetList[0].availableAmount as string, cards: cards.body.cardList.length as number };
}

/** Holds the account's next card/create on `url` after it has reserved its key; resolves once the key is in flight. */
async function holdOn(
  url: string,
  apiKey: string,
  db: string,
  key: string,
): Promise<{ pending: Promise<Answer | 'lost'> }> {
  expect(
    (await post(url, '/sandbox/v1/faults', apiKey, { rules: [{ path: '/v1/card/create', hold: true }] })).status,
  ).toBe(200);
  const pending = post(url, '/v1/card/create', apiKey, CREATE, key).catch(() => 'lost' as const);
  await waitFor(`key ${key} in flight`, () =>
    peekPostgres(db, `SELECT 1 FROM idempotency_keys WHERE key = '${key}' AND state = 'in_flight'`),
  );
  return { pending };
}

describe('Many instances: idempotency', () => {
  it('a retry on another instance replays the first answer and executes nothing', async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const [a, b] = deployment.urls as [string, string];
    const { apiKey } = await deployment.newAccount(100);
    const first = await post(a, '/v1/card/create', apiKey, CREATE, 'k1');
    expect(first.status).toBe(200);
    const retry = await post(b, '/v1/card/create', apiKey, CREATE, 'k1');
    expect(retry).toEqual({ status: 200, replayed: true, body: first.body });
    expect(await holdings(b, apiKey)).toEqual({ available: '90', cards: 1 });
  });

  it('the same key sent at once to two instances executes once; every other answer replays it', async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const { urls } = deployment;
    const { apiKey } = await deployment.newAccount(100);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post(urls[i % 2]!, '/v1/card/create', apiKey, CREATE, 'race')),
    );
    // Without a wait, the key's check, the command and its stored answer commit together under the account's lock.
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.cardId)).size).toBe(1);
    expect(await holdings(urls[0]!, apiKey)).toEqual({ available: '90', cards: 1 });
  });

  it('a key held in flight by one instance is 4212 on another until the first answers; then the other replays', async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const [a, b] = deployment.urls as [string, string];
    const { apiKey } = await deployment.newAccount(100);
    const { pending } = await holdOn(a, apiKey, deployment.db, 'held');
    const meanwhile = await post(b, '/v1/card/create', apiKey, CREATE, 'held');
    expect([meanwhile.status, meanwhile.body.code]).toEqual([409, 4212]);
    expect((await post(a, '/sandbox/v1/faults/release', apiKey)).body.released).toBe(1);
    const first = (await pending) as Answer;
    expect(first.status).toBe(200);
    expect(await post(b, '/v1/card/create', apiKey, CREATE, 'held')).toEqual({
      status: 200,
      replayed: true,
      body: first.body,
    });
    expect(await holdings(b, apiKey)).toEqual({ available: '90', cards: 1 });
  });

  it('a living holder renews its lease: after its lease has been renewed twice, another instance still gets 4212', async (ctx) => {
    // Long enough that a busy machine's stalls never outlast a renewal's period (a third of it): what is judged is
    // the renewals, not how fast the instance made them.
    deployment = await startInstances(ctx, 2, { env: { SANDBOX_IDEMPOTENCY_LEASE_MS: '6000' } });
    const [a, b] = deployment.urls as [string, string];
    const { apiKey } = await deployment.newAccount(100);
    const lease = () =>
      peekPostgres<string>(deployment!.db, "SELECT lease_until_ms FROM idempotency_keys WHERE key = 'renewed'");
    const { pending } = await holdOn(a, apiKey, deployment.db, 'renewed');
    const first = Number(await lease());
    // Renewed every third of its length: two renewals take it past its first end.
    await waitFor('the lease renewed past its first end', async () => Number(await lease()) > first + 6000);
    expect((await post(b, '/v1/card/create', apiKey, CREATE, 'renewed')).body.code).toBe(4212);
    await post(a, '/sandbox/v1/faults/release', apiKey);
    expect(((await pending) as Answer).status).toBe(200);
    expect(await holdings(b, apiKey)).toEqual({ available: '90', cards: 1 });
  });

  it('a key held by an instance that was killed is released by its lease; its retry on another executes once', async (ctx) => {
    // 6 s: the living holder's renewals (every 2 s) keep its key through a busy machine's stalls; 1.5 s once lapsed
    // before the first check.
    deployment = await startInstances(ctx, 2, { env: { SANDBOX_IDEMPOTENCY_LEASE_MS: '6000' } });
    const [holder, other] = deployment.instances as [Instances['instances'][0], Instances['instances'][0]];
    const { apiKey } = await deployment.newAccount(100);
    const { pending } = await holdOn(holder.url, apiKey, deployment.db, 'orphan');
    expect((await post(other.url, '/v1/card/create', apiKey, CREATE, 'orphan')).body.code).toBe(4212);
    await holder.kill('SIGKILL');
    expect(await pending).toBe('lost');
    // 4212 while the dead holder's lease runs, then free: the first retry that is not 4212 executes.
    const retry = await waitFor('the dead holder lease run out', async () => {
      const r = await post(other.url, '/v1/card/create', apiKey, CREATE, 'orphan');
      return r.body.code === 4212 ? undefined : r;
    });
    expect([retry.status, retry.replayed]).toEqual([200, false]);
    expect(await post(other.url, '/v1/card/create', apiKey, CREATE, 'orphan')).toEqual({
      status: 200,
      replayed: true,
      body: retry.body,
    });
    expect(await holdings(other.url, apiKey)).toEqual({ available: '90', cards: 1 });
  });
});
