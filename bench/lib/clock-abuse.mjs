// The tenants that abuse the clock in the noisy-neighbour run (docs/hosted.md, "A fair clock"), in the abusers'
// process of `npm run bench:hosted`:
// - D drives 20 cards with traffic at the tenant's bound (10 days of 500 stories a card: 100,000 stories) on a frozen
//   clock, so some 30,000 messages wait on it at any time, and advances it again and again by two 12-hour advances
//   sent at once (what once froze every tenant for 53 s);
// - E imports and deletes, one after the other, a snapshot of a day of its own traffic (about 3 MB, some 10,000 rows).
// `prepareClockAbuse` makes their cards, runs and snapshot before the phases; `startClockAbuse` runs the loops until
// stopped and answers what each got. Loopback only; bounded in count.
import { Agent, request } from 'node:http';

const json = { 'content-type': 'application/json' };
const DAY_S = 86_400;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One JSON request; resolves with {status, text}, status 0 when no answer came. */
function send(baseUrl, path, key, body, agent) {
  return new Promise((resolve) => {
    const req = request(
      new URL(path, baseUrl),
      { method: 'POST', headers: { ...json, 'x-api-key': key }, agent },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body ?? {}));
  });
}

/** A call that must succeed; a 429 (the tenant's own rate budget) waits a second and tries again. */
async function must(baseUrl, path, key, body) {
  for (;;) {
    const res = await send(baseUrl, path, key, body);
    if (res.status === 429) {
      await sleep(1000);
      continue;
    }
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
    return res.text;
  }
}

/** Cards of `amount`, on a frozen clock. */
async function cardsOnFrozenClock(baseUrl, key, count, amount) {
  await must(baseUrl, '/sandbox/v1/clock', key, { mode: 'frozen' });
  for (let i = 0; i < count; i++) await must(baseUrl, '/v1/card/create', key, { amount, currency: 'USDT' });
}

/** D's cards and runs, and E's snapshot (a day of 5 cards x 500 stories, its run stopped). */
export async function prepareClockAbuse(baseUrl, [d, e], { cards = 20, perCardPerDay = 500, days = 10 } = {}) {
  await cardsOnFrozenClock(baseUrl, d, cards, 2000);
  await must(baseUrl, '/sandbox/v1/traffic/start', d, { days, perCardPerDay, seed: 11 });
  await cardsOnFrozenClock(baseUrl, e, 5, 2000);
  const run = JSON.parse(
    await must(baseUrl, '/sandbox/v1/traffic/start', e, { days: 1, perCardPerDay: 500, seed: 12 }),
  );
  await must(baseUrl, '/sandbox/v1/clock', e, { advanceSeconds: DAY_S });
  await must(baseUrl, '/sandbox/v1/traffic/stop', e, { trafficId: run.trafficId });
  const snapshot = Buffer.from(await must(baseUrl, '/sandbox/v1/snapshot/export', e, {}));
  return { d, e, snapshot };
}

/** Counts answers by status. */
const tally = (into, status) => (into[status] = (into[status] ?? 0) + 1);

/** Runs D's advances and E's import-delete cycles until stopped. */
export function startClockAbuse(baseUrl, { d, e, snapshot }) {
  let stopped = false;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const outcomes = { concurrentAdvances: {}, pairs: { pairs: 0, seconds: 0 }, snapshotImports: {}, childDeletes: {} };
  const advances = (async () => {
    while (!stopped) {
      const started = performance.now();
      const both = await Promise.all(
        [0, 1].map(() => send(baseUrl, '/sandbox/v1/clock', d, { advanceSeconds: DAY_S / 2 }, agent)),
      );
      for (const r of both) tally(outcomes.concurrentAdvances, r.status);
      outcomes.pairs.pairs++;
      outcomes.pairs.seconds = Number((outcomes.pairs.seconds + (performance.now() - started) / 1000).toFixed(1));
      if (both.some((r) => r.status === 400)) break; // the run's days are over, or the clock at its limit
    }
  })();
  const cycles = (async () => {
    while (!stopped) {
      const imported = await send(baseUrl, '/sandbox/v1/snapshot/import', e, snapshot, agent);
      tally(outcomes.snapshotImports, imported.status);
      if (imported.status === 429) {
        await sleep(1000);
        continue;
      }
      if (imported.status !== 200) continue;
      const { accountId } = JSON.parse(imported.text);
      tally(
        outcomes.childDeletes,
        (await send(baseUrl, '/sandbox/v1/sandboxes/delete', e, { accountId }, agent)).status,
      );
    }
  })();
  return {
    /** Stops starting more, waits at most `waitMs` for what is under way, and answers what each abuse got. */
    async stop(waitMs = 120_000) {
      stopped = true;
      await Promise.race([Promise.all([advances, cycles]), sleep(waitMs)]);
      agent.destroy();
      return {
        'clock: two 12-hour advances at once': outcomes.concurrentAdvances,
        'clock: pairs of advances answered, and their seconds': outcomes.pairs,
        'clock: snapshot imports': outcomes.snapshotImports,
        'clock: child deletes': outcomes.childDeletes,
      };
    },
  };
}
