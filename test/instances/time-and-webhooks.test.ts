import { createServer } from 'node:http';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startInstances, type Instances } from '../helpers/instances.js';
import { closeServer, listen } from '../helpers/loopback.js';
import { waitFor } from '../helpers/wait.js';

// Issue 44, items 3 and 4, through HTTP against real `serve` processes on one PostgreSQL database: every job on the
// account clock runs once whichever instance advances it, and an account's webhook deliveries go out once each, one at
// a time, in the order its events happened, whichever instance made them; an instance killed with an attempt on the
// wire hands it to another once its claim runs out. The oracles: a second account driven the same way through one
// instance with one advance, the outbox's order as the database holds it, and the rows the deliveries leave.

let deployment: Instances | undefined;
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
  await deployment?.close();
  deployment = undefined;
});

type Body = Record<string, any>;

const call = async (url: string, method: string, path: string, apiKey: string, body: unknown = {}) => {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Body };
};

const post = async (url: string, path: string, apiKey: string, body: unknown = {}) => {
  const res = await call(url, 'POST', path, apiKey, body);
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
};

/** `work` on a connection of the test's own to the deployment's database. */
const onDatabase = async <T>(db: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: db });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** The account's outbox in the order its events were written (their sequence), as the database holds it. */
const outboxOrder = (db: string, accountId: string) =>
  onDatabase(db, async (c) =>
    (await c.query<{ id: string }>('SELECT id FROM events WHERE account_id = $1 ORDER BY seq', [accountId])).rows.map(
      (r) => r.id,
    ),
  );

/** Each instance's id as `/healthz` names it (the id its claims carry), by URL. */
const instanceIds = async (urls: string[]) =>
  Promise.all(urls.map(async (u) => ((await (await fetch(`${u}/healthz`)).json()) as { instance: string }).instance));

const DAY_S = 24 * 3600;

/** The account clock's instant a `sandbox/v1/clock` answer shows (ISO 8601), in milliseconds. */
const at = (answer: Body): number => Date.parse(answer.now as string);

/**
 * Cards with money settled on them and an authorisation left PENDING on each, then a deposit to each that settles
 * 3 s of account time later: an advance of 8 days runs a settlement per card and an expiry per authorisation (7 days).
 */
async function preparedAccount(url: string, apiKey: string, cards: number): Promise<number> {
  const start = at(await post(url, '/sandbox/v1/clock', apiKey, { mode: 'frozen' }));
  const ids: string[] = [];
  for (let i = 0; i < cards; i++) {
    ids.push((await post(url, '/v1/card/create', apiKey, { amount: 20, currency: 'USDT' })).cardId as string);
  }
  await post(url, '/sandbox/v1/clock', apiKey, { advanceSeconds: 60 });
  for (const cardId of ids) {
    await post(url, '/sandbox/v1/card/authorize', apiKey, { cardId, amount: 2 });
    await post(url, '/v1/card/deposit', apiKey, { cardId, amount: 5, currency: 'USDT' });
  }
  return start + 60_000;
}

/** What the account's jobs leave: its events by type and status, its cards' money, its ledger's transfers by reason. */
async function effects(db: string, url: string, apiKey: string, accountId: string) {
  const events = (await post(url, '/sandbox/v1/events', apiKey, { limit: 1000 })).events as Body[];
  const cards = (await post(url, '/v1/card/list', apiKey)).cardList as Body[];
  const transfers = await onDatabase(
    db,
    async (c) =>
      (
        await c.query<{ reason: string; n: number }>(
          'SELECT reason, COUNT(*)::int AS n FROM transfers WHERE account_id = $1 GROUP BY reason ORDER BY reason',
          [accountId],
        )
      ).rows,
  );
  return {
    events: events.map((e) => `${e.type} ${e.data.previousStatus ?? ''} ${e.data.status ?? ''}`).sort(),
    cards: cards.map((c) => `${c.cardStatus} ${c.availableBalance} ${c.frozenAmount}`).sort(),
    transfers,
  };
}

/** Jobs of the account due on its clock and not run, as the database holds them. */
const dueJobsLeft = (db: string, accountId: string) =>
  onDatabase(
    db,
    async (c) =>
      (
        await c.query<{ n: number }>(
          `SELECT COUNT(*)::int AS n FROM jobs j JOIN accounts a ON a.id = j.account_id
            WHERE a.id = $1 AND j.due_at_ms <= a.clock_frozen_at_ms`,
          [accountId],
        )
      ).rows[0]!.n,
  );

/** A receiver on loopback that records each body's event id as it arrives and how many were on the wire at once. */
async function slowReceiver(answerAfterMs: number) {
  const arrived: string[] = [];
  const held: (() => void)[] = [];
  let inFlight = 0;
  let mostInFlight = 0;
  let holdNext = false;
  const server = createServer((req, res) => {
    inFlight++;
    mostInFlight = Math.max(mostInFlight, inFlight);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrived.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
      let over = false;
      const end = () => {
        if (over) return false;
        over = true;
        inFlight--;
        return true;
      };
      const answer = () => end() && res.end('ok');
      // A sender killed with its request on the wire closes the connection: no longer in flight.
      req.socket.on('close', end);
      // A held request is answered only when the test says (its sender may be killed first: then never).
      if (holdNext) {
        holdNext = false;
        held.push(answer);
      } else setTimeout(answer, answerAfterMs);
    });
  });
  const url = `${await listen(server)}/hooks`;
  closing.push(() => closeServer(server));
  return {
    url,
    arrived,
    held,
    get mostInFlight() {
      return mostInFlight;
    },
    holdTheNext() {
      holdNext = true;
    },
  };
}

/** The instances holding a claim on one of the account's jobs (an attempt on the wire), one row per claim. */
function claimHolders(db: string, accountId: string): Promise<{ claimed_by: string }[]> {
  return onDatabase(
    db,
    async (c) =>
      (
        await c.query<{ claimed_by: string }>(
          'SELECT claimed_by FROM jobs WHERE account_id = $1 AND claimed_by IS NOT NULL',
          [accountId],
        )
      ).rows,
  );
}

describe('Time, once (issue 44 item 3)', () => {
  it('two instances advancing one account clock at once run each due job exactly once, as one advance on one instance does', async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const { urls, db } = deployment;
    const [a, b] = urls as [string, string];
    const raced = await deployment.newAccount(1000);
    const alone = await deployment.newAccount(1000);
    // The raced account's events go to a receiver: an advance awaits the attempts that fall due in it, so once it has
    // answered, every event up to the clock it answered has arrived (what the wall-clock timer sends later has not).
    const rx = await slowReceiver(0);
    expect((await call(a, 'PUT', '/v1/webhook', raced.apiKey, { url: rx.url })).status).toBe(200);
    const racedFrom = await preparedAccount(a, raced.apiKey, 8);
    const aloneFrom = await preparedAccount(a, alone.apiKey, 8);
    const beforeAdvance = await effects(db, a, raced.apiKey, raced.accountId);

    // Two 4-day advances at once, one through each instance, against one 8-day advance through one.
    const answers = await Promise.all([
      post(a, '/sandbox/v1/clock', raced.apiKey, { advanceSeconds: 4 * DAY_S }),
      post(b, '/sandbox/v1/clock', raced.apiKey, { advanceSeconds: 4 * DAY_S }),
    ]);
    // Each answered once every job due up to the clock it answered had run, and its events had been delivered.
    expect(new Set(rx.arrived)).toEqual(new Set(await outboxOrder(db, raced.accountId)));
    expect(await dueJobsLeft(db, raced.accountId)).toBe(0);
    await post(a, '/sandbox/v1/clock', alone.apiKey, { advanceSeconds: 8 * DAY_S });

    const racedClock = await post(b, '/sandbox/v1/clock', raced.apiKey);
    const aloneClock = await post(a, '/sandbox/v1/clock', alone.apiKey);
    // Both clocks moved 8 days, the later answer showing where the two advances together took it.
    expect(at(racedClock)).toBe(racedFrom + 8 * DAY_S * 1000);
    expect(at(aloneClock)).toBe(aloneFrom + 8 * DAY_S * 1000);
    expect(Math.max(...answers.map(at))).toBe(at(racedClock));
    // Their jobs (a settlement per deposit, an expiry per authorisation) left the same effects: each ran once.
    const racedEffects = await effects(db, b, raced.apiKey, raced.accountId);
    expect(racedEffects).not.toEqual(beforeAdvance);
    expect(racedEffects).toEqual(await effects(db, a, alone.apiKey, alone.accountId));
  });

  it('an advance through either instance answers once every job due by the clock it answers has run, while the other advances the same clock', async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const { urls, db } = deployment;
    const [a, b] = urls as [string, string];
    const partner = await deployment.newAccount(1000);
    const rx = await slowReceiver(0);
    await post(a, '/sandbox/v1/clock', partner.apiKey, { mode: 'frozen' });
    expect((await call(a, 'PUT', '/v1/webhook', partner.apiKey, { url: rx.url })).status).toBe(200);
    const cards: string[] = [];
    for (let i = 0; i < 3; i++) {
      cards.push((await post(a, '/v1/card/create', partner.apiKey, { amount: 20, currency: 'USDT' })).cardId as string);
    }
    await post(a, '/sandbox/v1/clock', partner.apiKey, { advanceSeconds: 60 });
    // Authorisations now and 4 days on: their expiries fall 7 and 11 days from now, each with its event's delivery.
    for (const cardId of cards) await post(a, '/sandbox/v1/card/authorize', partner.apiKey, { cardId, amount: 1 });
    await post(a, '/sandbox/v1/clock', partner.apiKey, { advanceSeconds: 4 * DAY_S });
    for (const cardId of cards) await post(a, '/sandbox/v1/card/authorize', partner.apiKey, { cardId, amount: 1 });
    await waitFor('the events so far delivered', async () =>
      rx.arrived.length === (await outboxOrder(db, partner.accountId)).length ? true : undefined,
    );

    // Two 5-day advances at once: the first expiry's delivery is held on the wire until both are under way, so
    // neither can have moved the clock before the other read it; together they move it 10 days, past every expiry.
    rx.holdTheNext();
    const answers = Promise.all([
      post(a, '/sandbox/v1/clock', partner.apiKey, { advanceSeconds: 5 * DAY_S }),
      post(b, '/sandbox/v1/clock', partner.apiKey, { advanceSeconds: 5 * DAY_S }),
    ]);
    await waitFor('an expiry delivery on the wire', () => rx.held.length === 1);
    rx.held[0]!();
    const [first, second] = await answers;
    const written = await outboxOrder(db, partner.accountId);
    // Both answered: every expiry ran and its event was delivered before the later of the two answers.
    expect(Math.max(at(first!), at(second!))).toBe(at(await post(a, '/sandbox/v1/clock', partner.apiKey)));
    expect(new Set(rx.arrived)).toEqual(new Set(written));
    expect(await dueJobsLeft(db, partner.accountId)).toBe(0);
  });

  it('a request through one instance runs at the clock another instance advanced, not at the one it saw before', async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const { urls } = deployment;
    const [a, b] = urls as [string, string];
    const partner = await deployment.newAccount(1000);
    await post(a, '/sandbox/v1/clock', partner.apiKey, { mode: 'frozen' });
    const { cardId } = await post(a, '/v1/card/create', partner.apiKey, { amount: 20, currency: 'USDT' });
    // Through b, which then has the key's account (and its clock) in hand, before a moves the clock.
    const before = await post(b, '/v1/card/list', partner.apiKey);
    expect(before.cardList).toHaveLength(1);
    const moved = await post(a, '/sandbox/v1/clock', partner.apiKey, { advanceSeconds: 3600 });
    // The card frozen through b: its event happened at the moved clock's instant.
    await post(b, '/v1/card/freeze', partner.apiKey, { cardId });
    const events = (await post(b, '/sandbox/v1/events', partner.apiKey, { type: 'card.frozen' })).events as Body[];
    expect(events.map((e) => e.created)).toEqual([Math.floor(at(moved) / 1000)]);
    expect(at(await post(b, '/sandbox/v1/clock', partner.apiKey))).toBe(at(moved));
  });
});

describe('Webhooks, once and in order (issue 44 item 4)', () => {
  it("an account's deliveries go out once each, one at a time, in the order its events happened on two instances", async (ctx) => {
    deployment = await startInstances(ctx, 2);
    const { urls, db } = deployment;
    const [a, b] = urls as [string, string];
    const rx = await slowReceiver(15);
    const partner = await deployment.newAccount(1000);
    // A frozen clock: every event of the run has the same instant, so their order is the order they were written.
    await post(a, '/sandbox/v1/clock', partner.apiKey, { mode: 'frozen' });
    expect((await call(a, 'PUT', '/v1/webhook', partner.apiKey, { url: rx.url })).status).toBe(200);
    const first = (await post(a, '/v1/card/create', partner.apiKey, { amount: 20, currency: 'USDT' })).cardId;
    const second = (await post(b, '/v1/card/create', partner.apiKey, { amount: 20, currency: 'USDT' })).cardId;
    for (let i = 0; i < 8; i++) {
      // Events of one account made on both instances at once.
      await Promise.all([
        post(a, `/v1/card/${i % 2 === 0 ? 'freeze' : 'unfreeze'}`, partner.apiKey, { cardId: first }),
        post(b, `/v1/card/${i % 2 === 0 ? 'freeze' : 'unfreeze'}`, partner.apiKey, { cardId: second }),
      ]);
    }
    const written = await outboxOrder(db, partner.accountId);
    expect(written.length).toBeGreaterThanOrEqual(18);
    await waitFor('every event delivered', () => rx.arrived.length >= written.length);
    const attempts = await waitFor('every delivery recorded as delivered', () =>
      onDatabase(db, async (c) => {
        const rows = (
          await c.query<{ state: string; attempts: number }>(
            'SELECT state, attempts::int AS attempts FROM webhook_deliveries WHERE account_id = $1',
            [partner.accountId],
          )
        ).rows;
        return rows.length === written.length && rows.every((r) => r.state === 'delivered') && rows;
      }),
    );
    expect(attempts.every((r) => r.attempts === 1)).toBe(true);
    expect(rx.arrived).toEqual(written);
    expect(rx.mostInFlight).toBe(1);
  });

  it("a killed instance's attempt on the wire is taken over by another once its claim runs out, and the order holds", async (ctx) => {
    deployment = await startInstances(ctx, 2, { env: { SANDBOX_JOB_LEASE_MS: '2000' } });
    const { urls, db, instances } = deployment;
    const [a, b] = urls as [string, string];
    const rx = await slowReceiver(5);
    const partner = await deployment.newAccount(1000);
    await post(a, '/sandbox/v1/clock', partner.apiKey, { mode: 'frozen' });
    expect((await call(a, 'PUT', '/v1/webhook', partner.apiKey, { url: rx.url })).status).toBe(200);
    rx.holdTheNext();
    const { cardId } = await post(a, '/v1/card/create', partner.apiKey, { amount: 20, currency: 'USDT' });
    await post(b, '/v1/card/freeze', partner.apiKey, { cardId });
    await post(a, '/v1/card/unfreeze', partner.apiKey, { cardId });
    const written = await outboxOrder(db, partner.accountId);
    expect(written.length).toBeGreaterThanOrEqual(3);

    // The first event's attempt is on the wire, held by the receiver; whichever instance sent it holds its claim.
    await waitFor('the first attempt on the wire', () => rx.held.length === 1);
    const claimedBy = await claimHolders(db, partner.accountId);
    expect(claimedBy).toHaveLength(1);
    const ids = await instanceIds(urls);
    const sender = ids.indexOf(claimedBy[0]!.claimed_by);
    expect(sender).toBeGreaterThanOrEqual(0);
    // Nothing else of the account goes out while its first attempt is on the wire.
    expect(rx.arrived).toEqual([written[0]]);
    await instances[sender]!.kill('SIGKILL');

    // The survivor sends the first event again once the dead instance's claim has run out, then the rest, in order.
    await waitFor('every event delivered by the survivor', () => rx.arrived.length >= written.length + 1, {
      timeoutMs: 30_000,
    });
    expect(rx.arrived).toEqual([written[0], ...written]);
    const deliveries = await waitFor('every delivery recorded', () =>
      onDatabase(db, async (c) => {
        const rows = (
          await c.query<{ state: string; attempts: number }>(
            'SELECT state, attempts::int AS attempts FROM webhook_deliveries WHERE account_id = $1 ORDER BY id',
            [partner.accountId],
          )
        ).rows;
        return rows.every((r) => r.state === 'delivered') && rows;
      }),
    );
    // The dead instance's attempt was never recorded: each delivery is one recorded attempt, by the survivor.
    expect(deliveries.map((r) => r.attempts)).toEqual(written.map(() => 1));
  });

  it("an attempt whose claim another instance took over while its sender stalled records nothing: each delivery is one recorded attempt, the taker's", async (ctx) => {
    deployment = await startInstances(ctx, 2, { env: { SANDBOX_JOB_LEASE_MS: '2000' } });
    const { urls, db, instances } = deployment;
    const [a] = urls as [string, string];
    const rx = await slowReceiver(5);
    const partner = await deployment.newAccount(1000);
    await post(a, '/sandbox/v1/clock', partner.apiKey, { mode: 'frozen' });
    expect((await call(a, 'PUT', '/v1/webhook', partner.apiKey, { url: rx.url })).status).toBe(200);
    rx.holdTheNext();
    await post(a, '/v1/card/create', partner.apiKey, { amount: 20, currency: 'USDT' });
    const written = await outboxOrder(db, partner.accountId);
    await waitFor('the first attempt on the wire', () => rx.held.length === 1);
    const claimedBy = await claimHolders(db, partner.accountId);
    const stalled = instances[(await instanceIds(urls)).indexOf(claimedBy[0]!.claimed_by)]!;

    // The sender stalls (stopped, not dead): its claim runs out unrenewed, and the other instance sends every event.
    stalled.process.child.kill('SIGSTOP');
    await waitFor('every event delivered by the other instance', () => rx.arrived.length >= written.length + 1);
    const recorded = () =>
      onDatabase(
        db,
        async (c) =>
          (
            await c.query<{ state: string; attempts: number }>(
              'SELECT state, attempts::int AS attempts FROM webhook_deliveries WHERE account_id = $1 ORDER BY id',
              [partner.accountId],
            )
          ).rows,
      );
    await waitFor('every delivery recorded', async () => (await recorded()).every((r) => r.state === 'delivered'));

    // The stalled sender goes on, and its receiver answers the attempt it had on the wire: it records nothing.
    stalled.process.child.kill('SIGCONT');
    expect(rx.held[0]!()).toBeTruthy();
    const attemptRows = () =>
      onDatabase(
        db,
        async (c) =>
          (
            await c.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM webhook_attempts WHERE account_id = $1', [
              partner.accountId,
            ])
          ).rows[0]!.n,
      );
    // Done with it, whichever way: it says it abandoned the attempt; or its recording failed (a stall outlasts the
    // timeouts of the statements it had on the wire, and it finds the database lost for a moment); or the attempt
    // shows among the recorded ones.
    const done = (r: Record<string, unknown>) =>
      r.msg === 'webhook attempt abandoned: another instance holds its claim now' ||
      (r.msg === 'background job failed' && r.job === 'webhook.attempt');
    await waitFor(
      'the stalled sender done with its attempt',
      async () => stalled.process.logs().some(done) || (await attemptRows()) > written.length,
    );
    expect((await recorded()).map((r) => r.attempts)).toEqual(written.map(() => 1));
    expect(await attemptRows()).toBe(written.length);
  });
});
