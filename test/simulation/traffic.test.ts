import { describe, expect } from 'vitest';
import {
  eventsOf,
  expectConserved,
  expectRefusedUnchanged,
  newCard,
  outbox,
  sim,
  walletAvailable,
} from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import { expectLedgerAgrees, listedRows, PartnerLedger } from '../helpers/partner-ledger.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

// traffic/start and traffic/stop (docs/design.md section 15): a seeded stream of every kind of network message on
// the account clock. The partner's ledger (test/helpers/partner-ledger.ts) folded from the events a run sends agrees
// with card/asset and bill/list throughout; the same seed gives the same listing; a run keeps at most a day of its
// messages, is bounded per tenant, and ends with traffic/stop, reset or the deletion of its sandbox.

const DAY = 86_400;
/** Stories a card a day in the 90-day run: 10 inside `npm test`, 100 in `npm run test:ledger`. */
const PER_CARD_PER_DAY = Number(process.env.TRAFFIC_PER_CARD_PER_DAY ?? 10);
const SCHEDULED_KINDS = [
  'authorization',
  'decline',
  'increment',
  'partialReversal',
  'reversal',
  'clearing',
  'partialClearing',
  'multiClearing',
  'overClearing',
  'forcePost',
  'refund',
  'unlinkedRefund',
  'expiry',
];

let sb: TestSandbox;
let acct: AccountHandle;
let key: string;

it.beforeEach(({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
  key = acct.apiKey;
});

const start = (body: Record<string, unknown>) => sim(sb, key, 'traffic/start', body);
const jobsOf = (accountId: string) =>
  sb.deps.store.value("SELECT COUNT(*) FROM jobs WHERE account_id = ? AND kind LIKE 'traffic.%'", [accountId]);

/** Cards of `amount` each, funded by the partner: the ledger knows their credit (the account's fee is 0 %). */
async function cards(n: number, amount: number, ledger?: PartnerLedger): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(await newCard(sb, key, amount));
    ledger?.fund(ids[i]!, amount * 1_000_000);
  }
  return ids;
}

describe('traffic/start', () => {
  it('a 90-day run on 3 cards: the ledger folded from its events equals card/asset every day and bill/list, and no USDT moves', async () => {
    const ledger = new PartnerLedger();
    const cardIds = await cards(3, 300, ledger);
    const wallet = await walletAvailable(sb, key);
    const res = await start({ days: 90, perCardPerDay: PER_CARD_PER_DAY, seed: 7 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      code: 0,
      status: 'running',
      seed: 7,
      cardIds,
      days: 90,
      perCardPerDay: PER_CARD_PER_DAY,
    });
    const scheduled = res.body.scheduled as Record<string, number>;
    expect(Object.keys(scheduled).sort()).toEqual([...SCHEDULED_KINDS].sort());
    for (const kind of SCHEDULED_KINDS) expect(scheduled[kind], kind).toBeGreaterThan(0);
    for (let day = 1; day <= 100; day++) {
      await sb.advance(key, DAY);
      ledger.fold(await outbox(sb, acct.accountId));
      await expectLedgerAgrees(sb, key, ledger, cardIds, { listing: day % 25 === 0 });
    }
    expect(await listedRows(sb, key)).toEqual(ledger.listing());
    expect((await sim(sb, key, 'traffic/list')).body.runs[0]).toMatchObject({
      trafficId: res.body.trafficId,
      status: 'done',
    });
    expect(await walletAvailable(sb, key)).toBe(wallet);
    await expectConserved(sb.deps, acct.accountId);
    // Every kind of message was sent: first seen CLEARED (force posts and parts), holds moved while PENDING,
    // refunds, declines and expiries.
    const seen = new Set(
      (await outbox(sb, acct.accountId))
        .filter((e) => e.type.startsWith('transaction.'))
        .map((e) => `${e.type} ${e.data.previousStatus ?? '-'} ${e.data.status}`),
    );
    expect([...seen].sort()).toEqual(
      [
        'transaction.created - CLEARED',
        'transaction.created - PENDING',
        'transaction.updated PENDING CANCELLED',
        'transaction.updated PENDING CLEARED',
        'transaction.updated PENDING DECLINED',
        'transaction.updated PENDING PENDING',
        'transaction.updated PENDING REFUND',
      ].sort(),
    );
  }, 120_000);

  it('the same seed, starting balances and clock give the same messages, amounts and merchants; another seed does not', async () => {
    const listing = async (seed: number) => {
      const other = await sb.account({ balance: 1000, depositFeeRate: '0' });
      for (let i = 0; i < 2; i++) await newCard(sb, other.apiKey, 200);
      expect((await sim(sb, other.apiKey, 'traffic/start', { days: 5, perCardPerDay: 6, seed })).status).toBe(200);
      await sb.advance(other.apiKey, 20 * DAY);
      const rows = (await sb.post(other.apiKey, '/v1/bill/list', { pageSize: 100 })).body.transactions;
      expect(rows.length).toBeGreaterThan(40);
      return rows;
    };
    const first = await listing(42);
    expect(await listing(42)).toEqual(first);
    expect(await listing(43)).not.toEqual(first);
  });

  it('drives the account’s ACTIVE cards by default, and answers with the seed it drew', async () => {
    const [active, frozen] = await cards(2, 50);
    await sb.post(key, '/v1/card/freeze', { cardId: frozen });
    const res = await start({ days: 1, perCardPerDay: 1 });
    expect(res.body.cardIds).toEqual([active]);
    expect(Number.isInteger(res.body.seed)).toBe(true);
  });

  it('runs each message when the clock passes its time, on a running clock too', async () => {
    await cards(1, 100);
    await sim(sb, key, 'clock', { mode: 'running' });
    await start({ days: 2, perCardPerDay: 20, seed: 1 });
    expect(await eventsOf(sb, acct.accountId, 'transaction.created')).toHaveLength(0);
    sb.wall.ms += DAY * 1000;
    await sim(sb, key, 'traffic/list');
    const day1 = (await eventsOf(sb, acct.accountId, 'transaction.created')).length;
    expect(day1).toBeGreaterThanOrEqual(20);
    sb.wall.ms += DAY * 1000;
    await sim(sb, key, 'traffic/list');
    expect((await eventsOf(sb, acct.accountId, 'transaction.created')).length).toBeGreaterThan(day1);
  });
});

describe('traffic/stop', () => {
  it('cancels what has not run: no more messages after it, only the expiry of authorisations already made', async () => {
    await cards(2, 100);
    const { trafficId } = (await start({ days: 30, perCardPerDay: 10, seed: 3 })).body;
    await sb.advance(key, DAY);
    const stopped = await sim(sb, key, 'traffic/stop', { trafficId });
    expect(stopped.body).toMatchObject({ code: 0, trafficId, status: 'stopped' });
    expect(stopped.body.cancelled).toBeGreaterThan(0);
    expect(await jobsOf(acct.accountId)).toBe(0);
    const before = (await eventsOf(sb, acct.accountId)).length;
    await sb.advance(key, 30 * DAY);
    const after = (await eventsOf(sb, acct.accountId)).slice(before);
    expect(after.every((e) => e.type === 'transaction.updated' && e.data.status === 'CANCELLED')).toBe(true);
    expect((await sim(sb, key, 'traffic/stop', { trafficId })).body).toMatchObject({ status: 'stopped', cancelled: 0 });
    expect((await sim(sb, key, 'traffic/stop', { trafficId: 'trf_nope' })).status).toBe(404);
  });

  it('is what reset and the deletion of a child sandbox do too: no run and no message is left', async () => {
    await cards(1, 100);
    await start({ days: 90, perCardPerDay: 50 });
    await sb.advance(key, 1);
    expect(await jobsOf(acct.accountId)).toBeGreaterThan(0);
    await sim(sb, key, 'reset');
    expect(await jobsOf(acct.accountId)).toBe(0);
    expect((await sim(sb, key, 'traffic/list')).body.runs).toEqual([]);
    const child = (await sim(sb, key, 'sandboxes/create', { balance: 100 })).body;
    await newCard(sb, child.apiKey, 50);
    expect((await sim(sb, child.apiKey, 'traffic/start', { days: 90, perCardPerDay: 50 })).status).toBe(200);
    await sb.advance(child.apiKey, 1);
    expect(await jobsOf(child.accountId)).toBeGreaterThan(0);
    await sim(sb, key, 'sandboxes/delete', { accountId: child.accountId });
    expect(await jobsOf(child.accountId)).toBe(0);
    expect(await sb.deps.store.value('SELECT COUNT(*) FROM traffic_runs WHERE account_id = ?', [child.accountId])).toBe(
      0,
    );
  });
});

describe('what a traffic run may make the server keep', () => {
  it('keeps at most a day of a run’s messages: each day is made when the clock reaches it', async () => {
    await cards(2, 100);
    await start({ days: 90, perCardPerDay: 500, seed: 5 });
    expect(await jobsOf(acct.accountId)).toBe(1);
    await sb.advance(key, 0);
    // The day's 1,000 stories' first messages and the next day.
    expect(await jobsOf(acct.accountId)).toBe(1001);
  });

  it.each([
    [{ days: 0, perCardPerDay: 1 }, 'days must be an integer between 1 and 90'],
    [{ days: 91, perCardPerDay: 1 }, 'days must be an integer between 1 and 90'],
    [{ days: 1, perCardPerDay: 501 }, 'perCardPerDay must be an integer between 1 and 500'],
    [
      { days: 1, perCardPerDay: 1, mix: { tips: 1 } },
      'mix.tips: unknown field (it takes clearing, overClearing, increment, partialReversal, reversal, multiClearing, refund, decline, expiry, forcePost, unlinkedRefund)',
    ],
  ])('refuses %j with 400 naming the field, keeping nothing', async (body, message) => {
    await cards(1, 10);
    const res = await expectRefusedUnchanged(sb, 400, () => start(body));
    expect(res.body).toEqual({ code: 400, message });
  });

  it('refuses a run past its tenant’s bounds (3 live runs, 100,000 stories), child sandboxes included, keeping nothing', async () => {
    const [card] = await cards(3, 10);
    const tooMany = await expectRefusedUnchanged(sb, 400, () => start({ days: 90, perCardPerDay: 500 }));
    expect(tooMany.body.message).toMatch(
      /^this tenant has 0 traffic runs with 0 stories still to send; the limits are 3 runs and 100000 stories \(cards x days x perCardPerDay, 135000 asked\)/,
    );
    expect((await start({ cardIds: [card], days: 90, perCardPerDay: 500 })).status).toBe(200);
    expect((await start({ cardIds: [card], days: 1, perCardPerDay: 1 })).status).toBe(200);
    const child = (await sim(sb, key, 'sandboxes/create', { balance: 100 })).body;
    await newCard(sb, child.apiKey, 50);
    expect((await sim(sb, child.apiKey, 'traffic/start', { days: 1, perCardPerDay: 1 })).status).toBe(200);
    const fourth = await expectRefusedUnchanged(sb, 400, () => start({ cardIds: [card], days: 1, perCardPerDay: 1 }));
    expect(fourth.body.message).toMatch(/^this tenant has 3 traffic runs with 45002 stories still to send/);
    const first = (await sim(sb, key, 'traffic/list')).body.runs.at(-1).trafficId;
    await sim(sb, key, 'traffic/stop', { trafficId: first });
    expect((await start({ cardIds: [card], days: 1, perCardPerDay: 1 })).status).toBe(200);
  });

  it('counts a snapshot’s live runs at import as traffic/start counts them: past 3 runs or 100,000 stories, no child is made', async () => {
    const [a, b, c] = await cards(3, 10);
    for (const cardId of [a, b])
      expect((await start({ cardIds: [cardId], days: 10, perCardPerDay: 500 })).status).toBe(200);
    const exported = (await sim(sb, key, 'snapshot/export')).text;
    // The export holds 2 live runs of 5,000 stories: with the tenant's own 2, that is 4 runs.
    const four = await expectRefusedUnchanged(sb, 400, () => sim(sb, key, 'snapshot/import', JSON.parse(exported)));
    expect(four.body.message).toMatch(
      /^this tenant has 2 traffic runs with 10000 stories still to send; the limits are 3 runs and 100000 stories \(cards x days x perCardPerDay, 10000 asked in 2 runs\): stop a run \(traffic\/stop\) or import a snapshot without live traffic$/,
    );
    expect((await sim(sb, key, 'sandboxes/list')).body.sandboxes).toEqual([]);
    // Stopped, the runs no longer count: the same export imports, and its runs are the tenant's.
    for (const run of (await sim(sb, key, 'traffic/list')).body.runs) {
      await sim(sb, key, 'traffic/stop', { trafficId: run.trafficId });
    }
    const child = await sim(sb, key, 'snapshot/import', JSON.parse(exported));
    expect(child.status, JSON.stringify(child.body)).toBe(200);
    expect((await start({ cardIds: [c], days: 1, perCardPerDay: 1 })).status).toBe(200);
    // (The import first runs the account's due timers, the new run's first day among them.)
    const again = await sim(sb, key, 'snapshot/import', JSON.parse(exported));
    expect([again.status, again.body.message]).toEqual([
      400,
      expect.stringMatching(/^this tenant has 3 traffic runs with 10001 stories still to send/),
    ]);
    expect((await sim(sb, key, 'sandboxes/list')).body.sandboxes).toHaveLength(1);
  });

  it('refuses an account without an ACTIVE card, and a cancelled card', async () => {
    expect((await expectRefusedUnchanged(sb, 400, () => start({ days: 1, perCardPerDay: 1 }))).body.message).toBe(
      'the account has no ACTIVE card: create one (card/create) or name cardIds',
    );
    const [cardId] = await cards(1, 10);
    await sb.post(key, '/v1/card/cancel', { cardId });
    await sb.advance(key, 5);
    const res = await expectRefusedUnchanged(sb, 400, () => start({ cardIds: [cardId], days: 1, perCardPerDay: 1 }));
    expect(res.body).toEqual({ code: 400, message: 'card is cancelled' });
  });
});
