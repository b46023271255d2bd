import { afterEach, describe, expect, it } from 'vitest';
import { startInstances, type Instances } from '../helpers/instances.js';
import { peekPostgres } from '../helpers/postgres.js';

// Instances dying under keyed load (`npm run test:instances` runs it for a minute; `npm test` for a few seconds):
// three instances on one database, clients sending keyed card/create and card/deposit round the instances, and one
// instance killed (SIGKILL) and started again every KILL_EVERY_MS. Judged on state once the load stops: every write
// a client saw acknowledged is there exactly once (its key replays it), every write it never heard back about
// executes once on retry, and the account's ledger sums to zero with the wallet down by exactly what was funded.

const SECONDS = Number(process.env.INSTANCES_CHAOS_SECONDS ?? '6');
const KILL_EVERY_MS = 2_000;
const CLIENTS = 4;
const AMOUNT = 10;

let deployment: Instances | undefined;
afterEach(async () => {
  await deployment?.close();
  deployment = undefined;
});

interface Write {
  key: string;
  path: '/v1/card/create' | '/v1/card/deposit';
  body: Record<string, unknown>;
}

async function send(url: string, apiKey: string, w: Write) {
  const res = await fetch(url + w.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'idempotency-key': w.key },
    body: JSON.stringify(w.body),
  });
  return {
    status: res.status,
    replayed: res.headers.get('idempotent-replayed') === 'true',
    text: await res.text(),
  };
}

describe('Many instances: killed again and again under keyed load', () => {
  it(`over ${SECONDS} s with an instance killed every ${KILL_EVERY_MS / 1000} s, every acknowledged write is there once and the ledger sums to zero`, async (ctx) => {
    deployment = await startInstances(ctx, 3);
    const { instances } = deployment;
    const { accountId, apiKey } = await deployment.newAccount(1_000_000);
    // A card per client to deposit on (one top-up settles at a time per card: the clock never moves here, so a
    // client deposits on its card once and creates otherwise).
    const acked = new Map<string, { write: Write; text: string }>();
    const unacked: Write[] = [];
    let stop = false;
    let n = 0;
    const client = async (c: number) => {
      let card: string | undefined;
      let deposited = false;
      for (let i = 0; !stop; i++) {
        const deposit = card !== undefined && !deposited;
        const w: Write = deposit
          ? { key: `chaos-${c}-${i}`, path: '/v1/card/deposit', body: { cardId: card, amount: AMOUNT } }
          : { key: `chaos-${c}-${i}`, path: '/v1/card/create', body: { amount: AMOUNT, currency: 'USDT' } };
        const url = instances[n++ % instances.length]!.url;
        try {
          const res = await send(url, apiKey, w);
          if (res.status === 200) {
            acked.set(w.key, { write: w, text: res.text });
            if (w.path === '/v1/card/create') card ??= (JSON.parse(res.text) as { cardId: string }).cardId;
            else deposited = true;
          } else unacked.push(w);
        } catch {
          unacked.push(w);
        }
      }
    };
    const killer = async () => {
      for (let k = 0; !stop; k++) {
        await new Promise((r) => setTimeout(r, KILL_EVERY_MS));
        if (!stop) await instances[k % instances.length]!.restart();
      }
    };
    const load = Promise.all([...Array.from({ length: CLIENTS }, (_, c) => client(c)), killer()]);
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    stop = true;
    await load;
    // Every instance up again: the retries and the checks go to all of them.
    for (const i of instances) await fetch(`${i.url}/healthz`);
    expect(acked.size).toBeGreaterThan(0);
    let m = 0;
    for (const [key, { write, text }] of acked) {
      const replay = await send(instances[m++ % instances.length]!.url, apiKey, write);
      expect([key, replay.status, replay.replayed, replay.text]).toEqual([key, 200, true, text]);
    }
    // What a client never heard back about: a retry executes it once, or replays what ran before the kill.
    for (const w of unacked) {
      const retry = await send(instances[m++ % instances.length]!.url, apiKey, w);
      expect([w.key, retry.status]).toEqual([w.key, 200]);
      acked.set(w.key, { write: w, text: retry.text });
    }
    const creates = [...acked.values()].filter((a) => a.write.path === '/v1/card/create');
    const cardIds = creates.map((a) => (JSON.parse(a.text) as { cardId: string }).cardId);
    expect(new Set(cardIds).size).toBe(creates.length);
    const listed = await peekPostgres<string>(
      deployment.db,
      `SELECT COUNT(*)::text FROM cards WHERE account_id = '${accountId}'`,
    );
    expect(Number(listed)).toBe(creates.length);
    // Double entry: the account's ledger sums to zero; the wallet paid exactly what was funded, once per write.
    const sum = await peekPostgres<string>(
      deployment.db,
      `SELECT COALESCE(SUM(balance_micros), 0)::text FROM ledger_accounts WHERE account_id = '${accountId}'`,
    );
    expect(sum).toBe('0');
    const wallet = await peekPostgres<string>(
      deployment.db,
      `SELECT balance_micros::text FROM ledger_accounts WHERE id = 'wallet:${accountId}'`,
    );
    expect(Number(wallet)).toBe((1_000_000 - AMOUNT * acked.size) * 1_000_000);
  });
});
