import { describe, expect } from 'vitest';
import type Database from 'better-sqlite3';
import { countJobsByRefPrefix, deleteJob, dueAccounts, dueJobCount } from '../../src/store/jobs.js';
import { spentOnDayMicros } from '../../src/store/transactions.js';
import { liveTrafficRuns } from '../../src/store/traffic.js';
import { validateBody, validateBodyInSlices } from '../../src/http/request-schema.js';
import { insertRows, newCard, sim } from '../helpers/core.js';
import { fundedTest as it } from '../helpers/fixtures.js';
import { onPostgres } from '../helpers/postgres.js';
import { sqliteOf, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';

// A fair clock (docs/hosted.md, "A fair clock"): what a tenant schedules never stalls another, costs what it runs and
// not what waits. Nothing here times anything: a race is decided by state (the other tenant's answer has arrived
// while the busy tenant's has not), and cost by what the database is asked (the query plans, the statements a day of
// traffic runs per message).

const DAY = 86_400;
let sb: TestSandbox;
let acct: AccountHandle;

it.beforeEach(({ sb: s, acct: a }) => {
  [sb, acct] = [s, a];
});

/** A tenant with `cards` cards of 200 on a frozen clock, running traffic of `perCardPerDay` stories for `days`. */
async function busyTenant(cards: number, perCardPerDay: number, days: number): Promise<AccountHandle> {
  const busy = await sb.account({ balance: 100_000, depositFeeRate: '0' });
  await sim(sb, busy.apiKey, 'clock', { mode: 'frozen' });
  for (let i = 0; i < cards; i++) await newCard(sb, busy.apiKey, 200);
  const run = await sim(sb, busy.apiKey, 'traffic/start', { days, perCardPerDay, seed: 7 });
  expect(run.status, JSON.stringify(run.body)).toBe(200);
  return busy;
}

/** Resolves to the promise's answer, and says (`settled()`) whether it has come yet. */
function watched<T>(p: PromiseLike<T>) {
  let done = false;
  const answer = Promise.resolve(p).then((v) => ((done = true), v));
  return { answer, settled: () => done };
}

/** The jobs of the account due at its clock's "now", not yet run. */
const dueOf = async (accountId: string) => {
  const row = (await dueAccounts(sb.deps.db, sb.wall.ms)).find((d) => d.account_id === accountId);
  if (!row) return 0;
  return (await sb.deps.store.value<number>('SELECT COUNT(*) FROM jobs WHERE account_id = ? AND due_at_ms <= ?', [
    accountId,
    row.now_ms,
  ]))!;
};

describe('what one tenant schedules never stalls another', () => {
  it('two half-day advances sent at once run one after the other, another tenant is answered meanwhile, and the clock never runs ahead of its jobs', async () => {
    const busy = await busyTenant(10, 200, 2);
    const cardId = await newCard(sb, acct.apiKey, 10);
    const before = (await sim(sb, busy.apiKey, 'clock')).body.now as string;
    const advances = [0, 1].map(() => watched(sim(sb, busy.apiKey, 'clock', { advanceSeconds: DAY / 2 })));
    const other = await sb.post(acct.apiKey, '/v1/card/asset', { cardId });
    expect(other.status).toBe(200);
    // Decided by state: the other tenant's answer came while neither advance had answered.
    expect(advances.map((a) => a.settled())).toEqual([false, false]);
    const answers = await Promise.all(advances.map((a) => a.answer));
    const nows = answers.map((r) => Date.parse(r.body.now)).sort((a, b) => a - b);
    expect(nows).toEqual([Date.parse(before) + (DAY / 2) * 1000, Date.parse(before) + DAY * 1000]);
    // Every job due by the clock's new "now" ran inside the advances: the next request finds none to run.
    expect(await dueOf(busy.accountId)).toBe(0);
  });

  it('a day of timers due on a running clock nobody touched is caught up in slices, another tenant answered first', async () => {
    const busy = await busyTenant(10, 200, 2);
    await sim(sb, busy.apiKey, 'clock', { mode: 'running' });
    const cardId = await newCard(sb, acct.apiKey, 10);
    sb.wall.ms += DAY * 1000;
    expect(await dueOf(busy.accountId)).toBeGreaterThan(1000);
    const own = watched(sb.post(busy.apiKey, '/v1/card/list', {}));
    const other = await sb.post(acct.apiKey, '/v1/card/asset', { cardId });
    expect(other.status).toBe(200);
    expect(own.settled()).toBe(false);
    expect((await own.answer).status).toBe(200);
    expect(await dueOf(busy.accountId)).toBe(0);
  });
});

describe('a snapshot import and a child’s deletion run in slices', () => {
  it('another tenant is answered while a snapshot of some thousands of rows loads, and while the child holding it is deleted', async () => {
    const busy = await busyTenant(3, 300, 1);
    expect((await sim(sb, busy.apiKey, 'clock', { advanceSeconds: DAY })).status).toBe(200);
    const exported = await sim(sb, busy.apiKey, 'snapshot/export');
    const doc = JSON.parse(exported.text);
    expect(doc.transactions.length + doc.events.length + doc.transfers.length).toBeGreaterThan(3_000);
    const cardId = await newCard(sb, acct.apiKey, 10);

    const load = watched(sim(sb, busy.apiKey, 'snapshot/import', doc));
    expect((await sb.post(acct.apiKey, '/v1/card/asset', { cardId })).status).toBe(200);
    expect(load.settled()).toBe(false);
    const child = await load.answer;
    expect(child.status, JSON.stringify(child.body).slice(0, 300)).toBe(200);
    // Loaded whole: the child's card/list is the exporter's.
    const listed = (key: string) => sb.post(key, '/v1/card/list', {}).then((r) => r.body.cardList.length);
    expect(await listed(child.body.apiKey)).toBe(await listed(busy.apiKey));

    const deletion = watched(sim(sb, busy.apiKey, 'sandboxes/delete', { accountId: child.body.accountId }));
    expect((await sb.post(acct.apiKey, '/v1/card/asset', { cardId })).status).toBe(200);
    expect(deletion.settled()).toBe(false);
    expect((await deletion.answer).status).toBe(200);
    const left = await sb.deps.store.value('SELECT COUNT(*) FROM transactions WHERE account_id = ?', [
      child.body.accountId,
    ]);
    expect(left).toBe(0);
    expect((await sb.post(child.body.apiKey, '/v1/card/list', {})).status).toBe(401);
  });
});

describe('a long body is checked in slices', () => {
  it.each([
    ['an item far down a section', (d: Record<string, any>) => (d.transactions[100].billAmountMicros = 'ten')],
    ['the first item of a section', (d: Record<string, any>) => (d.events[0].type = 7)],
    ['an unknown field of an item', (d: Record<string, any>) => (d.transfers[90].extra = 1)],
    ['a missing field beside a long section', (d: Record<string, any>) => delete d.clock],
  ])('%s: the same 400 as a check in one go', async (_what, spoil) => {
    const busy = await busyTenant(2, 100, 1);
    expect((await sim(sb, busy.apiKey, 'clock', { advanceSeconds: DAY })).status).toBe(200);
    const doc = JSON.parse((await sim(sb, busy.apiKey, 'snapshot/export')).text);
    expect(doc.transactions.length).toBeGreaterThan(100);
    await validateBodyInSlices('POST /sandbox/v1/snapshot/import', doc, () => Promise.resolve());
    spoil(doc);
    const message = (f: () => unknown) =>
      Promise.resolve()
        .then(f)
        .then(
          () => 'accepted',
          (err: Error) => err.message,
        );
    const atOnce = await message(() => validateBody('POST /sandbox/v1/snapshot/import', doc));
    expect(atOnce).not.toBe('accepted');
    expect(
      await message(() => validateBodyInSlices('POST /sandbox/v1/snapshot/import', doc, () => Promise.resolve())),
    ).toBe(atOnce);
    // Through HTTP, as the import answers it.
    expect((await sim(sb, busy.apiKey, 'snapshot/import', doc)).body).toEqual({ code: 400, message: atOnce });
  });
});

/**
 * Runs `work`, recording every statement it executes (better-sqlite3 keeps each one's SQL as `source`): how many were
 * executed, and their texts.
 */
async function recordStatements(db: Database.Database, work: () => Promise<unknown>): Promise<Recorded> {
  const recorder = startRecording(db);
  try {
    await work();
  } finally {
    recorder.stop();
  }
  return recorder.seen;
}

interface Recorded {
  count: number;
  texts: Set<string>;
  /** Executions by statement text. */
  byText: Map<string, number>;
}

/** Records every statement executed until `stop()`. */
function startRecording(db: Database.Database): { seen: Recorded; stop: () => void } {
  const proto = Object.getPrototypeOf(db.prepare('SELECT 1')) as Record<string, (...a: unknown[]) => unknown>;
  const methods = ['run', 'get', 'all', 'iterate'] as const;
  const originals = methods.map((m) => proto[m]!);
  const seen: Recorded = { count: 0, texts: new Set<string>(), byText: new Map() };
  methods.forEach((m, i) => {
    proto[m] = function (this: { source: string }, ...args: unknown[]) {
      seen.count++;
      seen.texts.add(this.source);
      seen.byText.set(this.source, (seen.byText.get(this.source) ?? 0) + 1);
      return originals[i]!.apply(this, args);
    };
  });
  return { seen, stop: () => methods.forEach((m, i) => (proto[m] = originals[i]!)) };
}

/** `EXPLAIN QUERY PLAN` of a statement, its rows' details joined; every parameter bound to NULL. */
function plan(db: Database.Database, text: string): string {
  const named = [...new Set([...text.matchAll(/[@:$]([a-zA-Z_]\w*)/g)].map((m) => m[1]!))];
  const stmt = db.prepare(`EXPLAIN QUERY PLAN ${text}`);
  const rows = named.length
    ? stmt.all(Object.fromEntries(named.map((n) => [n, null])))
    : stmt.all(...Array.from({ length: (text.match(/\?/g) ?? []).length }, () => null));
  return (rows as { detail: string }[]).map((r) => r.detail).join(' | ');
}

const SQLITE_PLANS =
  "counts better-sqlite3's statements and reads SQLite's EXPLAIN QUERY PLAN; PostgreSQL's planner answers otherwise";

describe('what waits costs nothing: every job and daily-spend lookup reads through an index to what it finds', () => {
  it('plans each query on its index: no job, transaction or spend row is read that the query does not answer with', async ({
    skip,
  }) => {
    if (onPostgres) return skip(SQLITE_PLANS);
    const db = sqliteOf(sb.deps);
    const store = sb.deps.db;
    // Each query run once through the store, so the plan read is that of the store's own statement.
    const { texts } = await recordStatements(db, async () => {
      await dueAccounts(store, 0);
      await dueJobCount(store, 0);
      await deleteJob(store, 'a', 'k', 'r');
      await countJobsByRefPrefix(store, 'a', '["k"]', 'p:');
      await spentOnDayMicros(store, 'a', 'c', 0);
      await liveTrafficRuns(store, 't', '["k"]');
    });
    const plans = Object.fromEntries(
      [
        ['due accounts', /FROM accounts a\s+WHERE EXISTS/],
        ['due job count', /SELECT COALESCE\(SUM\(\(SELECT COUNT/],
        ['job by kind and ref', /^DELETE FROM jobs WHERE account_id = \? AND kind = \? AND ref = \?$/],
        ['jobs by ref prefix', /^SELECT COUNT\(\*\) FROM jobs WHERE account_id = @account/],
        ['daily spend', /FROM card_day_spend WHERE/],
        ['live traffic runs', /FROM traffic_runs r JOIN accounts a/],
      ].map(([name, pattern]) => {
        const text = [...texts].find((t) => (pattern as RegExp).test(t));
        if (!text) throw new Error(`no prepared statement for ${String(name)}`);
        return [name, plan(db, text)];
      }),
    );
    expect(plans['due accounts']).toContain(
      'SEARCH j EXISTS USING COVERING INDEX jobs_account_due (account_id=? AND due_at_ms<?)',
    );
    expect(plans['due job count']).toContain(
      'SEARCH j USING COVERING INDEX jobs_account_due (account_id=? AND due_at_ms<?)',
    );
    expect(plans['job by kind and ref']).toBe(
      'SEARCH jobs USING INDEX jobs_account_kind_ref (account_id=? AND kind=? AND ref=?)',
    );
    expect(plans['jobs by ref prefix']).toContain(
      'SEARCH jobs USING COVERING INDEX jobs_account_kind_ref (account_id=? AND kind=? AND ref>? AND ref<?)',
    );
    expect(plans['daily spend']).toMatch(
      /^SEARCH card_day_spend USING (PRIMARY KEY|INDEX \S+) \(account_id=\? AND card_id=\? AND day_start_ms=\?\)$/,
    );
    expect(plans['live traffic runs']).toContain('jobs_account_kind_ref (account_id=? AND kind=? AND ref>? AND ref<?)');
    for (const [name, p] of Object.entries(plans))
      expect(p, name).not.toMatch(/\bSCAN (jobs|j|transactions|card_day_spend)\b/);
  });

  it('a traffic month advanced a day at a time: each day runs at the same statements per message, each through an index', async ({
    skip,
  }) => {
    if (onPostgres) return skip(SQLITE_PLANS);
    const busy = await busyTenant(4, 40, 8);
    const db = sqliteOf(sb.deps);
    const perDay: { jobs: number; statements: number }[] = [];
    const texts = new Set<string>();
    for (let day = 0; day < 8; day++) {
      const recorder = startRecording(db);
      try {
        expect((await sim(sb, busy.apiKey, 'clock', { advanceSeconds: DAY })).status).toBe(200);
      } finally {
        recorder.stop();
      }
      const { seen } = recorder;
      for (const t of seen.texts) texts.add(t);
      perDay.push({ jobs: seen.byText.get('DELETE FROM jobs WHERE id = ?') ?? 0, statements: seen.count });
    }
    // Each day ran its own messages (40 stories a card, a few messages each), at the same cost per message: the tenth
    // thousandth transaction is found, and the daily spend read, as the first were.
    for (const d of perDay) expect(d.jobs).toBeGreaterThan(4 * 40);
    const perJob = perDay.map((d) => d.statements / d.jobs);
    expect(Math.max(...perJob) / Math.min(...perJob)).toBeLessThan(1.2);
    // And no statement of those days reads a table whole (a scan of json_each, a list given as JSON, aside).
    expect(plan(db, 'SELECT * FROM jobs WHERE kind = ?')).toMatch(/SCAN jobs/);
    const scans = [...texts].flatMap((t) => {
      if (!/^\s*(SELECT|UPDATE|DELETE|WITH)/i.test(t)) return [];
      const p = plan(db, t);
      return /\bSCAN (?!json_each)/.test(p) ? [`${t.replace(/\s+/g, ' ')} => ${p}`] : [];
    });
    expect(scans).toEqual([]);
    // The daily spend an authorisation reads is a running total: it equals the sum over the rows, every card and day.
    const summed = db
      .prepare(
        `SELECT card_id, created_at_ms - created_at_ms % 86400000 AS day, SUM(bill_amount_micros) AS spent
           FROM transactions WHERE account_id = ? AND kind = 'SPEND' AND status IN ('PENDING', 'CLEARED')
           GROUP BY card_id, day HAVING spent <> 0 ORDER BY card_id, day`,
      )
      .all(busy.accountId);
    const kept = db
      .prepare(
        `SELECT card_id, day_start_ms AS day, spent_micros AS spent FROM card_day_spend
           WHERE account_id = ? AND spent_micros <> 0 ORDER BY card_id, day`,
      )
      .all(busy.accountId);
    expect(summed.length).toBeGreaterThan(8);
    expect(kept).toEqual(summed);
  });

  it('20,000 jobs parked on one tenant’s frozen clock are never due for the poll, nor counted as due', async () => {
    const parked = await sb.account({ balance: 10 });
    await sim(sb, parked.apiKey, 'clock', { mode: 'frozen' });
    const db = sb.deps.db;
    await sb.deps.transactions.run(async (deps) =>
      insertRows(
        deps.db,
        'jobs',
        ['account_id', 'due_at_ms', 'kind', 'ref'],
        Array.from({ length: 20_000 }, (_, i) => [
          parked.accountId,
          sb.wall.ms + DAY * 1000 + i,
          'txn.expire',
          `t${i}`,
        ]),
      ),
    );
    expect(await dueAccounts(db, sb.wall.ms)).toEqual([]);
    expect(await dueJobCount(db, sb.wall.ms)).toBe(0);
    // Another tenant's timer that falls due is found, and only it.
    const cardId = await newCard(sb, acct.apiKey, 10);
    await sb.post(acct.apiKey, '/v1/card/deposit', { cardId, amount: 5 });
    sb.wall.ms += 3_000;
    expect((await dueAccounts(db, sb.wall.ms)).map((d) => d.account_id)).toEqual([acct.accountId]);
    expect(await dueJobCount(db, sb.wall.ms)).toBe(1);
  });
});
