import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedgerFile } from './ledger-check.js';
import { ADMIN_TOKEN, ServerProcess } from './server-process.js';
import { call, prng, runTraffic, type KeyedOp } from './traffic.js';
import { waitFor } from '../helpers/wait.js';
import { freePort, listen } from '../helpers/loopback.js';
import { micros } from '../helpers/money.js';

// CRASH_ROUNDS kills (CI 3, `npm run test:crash` 20) of a real `card-sandbox serve` under concurrent keyed
// create / deposit / authorize / clear traffic. The account's deposit fee is 0
// and the BIN's open fee is 0, so every acknowledged amount lands on a card unchanged and the expected balances
// follow from the final answer of every idempotency key.
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
const SEED_BALANCE = 1_000_000;
const MICRO = 1_000_000;

let dir: string;
let server: ServerProcess;
let apiKey: string;
let receiver: Server | undefined;
const delivered = new Map<string, number>();

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return call(server.url, apiKey, path, body, headers);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandbox-crash-'));
  server = new ServerProcess(join(dir, 'crash.db'), await freePort());
  await server.start();
  const res = await fetch(`${server.url}/admin/v1/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${ADMIN_TOKEN}` },
    body: JSON.stringify({ depositAddress: null, balance: SEED_BALANCE, depositFeeRate: '0' }),
  });
  apiKey = ((await res.json()) as { apiKey: string }).apiKey;
  await post('/sandbox/v1/inventory', { binId: 'VISA-EFI-454924', available: 1_000_000 });

  // The traffic's routes answer (a refusal of an empty body, not a 404): a routing regression fails here.
  const probe = await post('/sandbox/v1/card/authorize', {});
  expect(probe.status, JSON.stringify(probe.body)).toBe(400);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const evt = JSON.parse(Buffer.concat(chunks).toString()) as { type: string; data: { cardId?: string } };
        if (evt.type === 'card.created' && evt.data.cardId)
          delivered.set(evt.data.cardId, (delivered.get(evt.data.cardId) ?? 0) + 1);
      } catch {
        // not an event
      }
      res.writeHead(200).end();
    });
  });
  const hookUrl = `${await listen(receiver)}/hook`;
  const put = await fetch(`${server.url}/v1/webhook`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ url: hookUrl, enabled: true }),
  });
  expect(put.status, await put.text()).toBe(200);
  console.log(`[crash] ${ROUNDS} rounds, CRASH_SEED=${SEED}`);
});

afterAll(async () => {
  await server?.kill();
  receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Authorise a random amount on a random card, then clear it (simulation branch only). */
function authorizeAndClear(cards: string[]) {
  return async (random: () => number) => {
    if (cards.length === 0) return;
    const cardId = cards[Math.floor(random() * cards.length)];
    const auth = await post('/sandbox/v1/card/authorize', { cardId, amount: 1 + Math.floor(random() * 3) });
    if (auth.status === 200 && auth.body.status === 'PENDING' && random() < 0.7) {
      await post('/sandbox/v1/transaction/clear', { transactionId: auth.body.transactionId });
    }
  };
}

async function allCards(): Promise<Map<string, { available: number; frozen: number }>> {
  const res = await post('/v1/card/list', {});
  expect(res.status).toBe(200);
  const out = new Map<string, { available: number; frozen: number }>();
  for (const c of res.body.cardList) {
    out.set(c.cardId, {
      available: micros(c.availableBalance),
      frozen: micros(c.frozenAmount),
    });
  }
  return out;
}

/** Cleared card spend minus refunds, from bill/list (COMPLETED spends are negative, refunds positive). */
async function clearedSpendMicros(): Promise<number> {
  let total = 0;
  for (let page = 1; ; page++) {
    const res = await post('/v1/bill/list', { pageNumber: page, pageSize: 100 });
    expect(res.status).toBe(200);
    for (const t of res.body.transactions) {
      if (t.status === 'COMPLETED' || (t.status === 'REVERTED' && !String(t.amount).startsWith('-'))) {
        total -= micros(t.amount);
      }
    }
    if (res.body.last) return total;
  }
}

describe('crash safety: SIGKILL at random moments under concurrent traffic, then restart', () => {
  it(
    'keeps money conserved, every acknowledged operation, and no idempotency key stuck in flight',
    async () => {
      const random = prng(SEED);
      const cards: string[] = [];
      const everyOp: KeyedOp[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        let stop!: () => void;
        const stopped = new Promise<void>((r) => (stop = r));
        const traffic = runTraffic(
          {
            url: server.url,
            apiKey,
            cards,
            random,
            keyPrefix: `r${round}`,
            workers: 8,
            extra: authorizeAndClear(cards),
          },
          stopped,
        );
        await new Promise((r) => setTimeout(r, 150 + Math.floor(random() * 600)));
        stop();
        await server.kill('SIGKILL');
        const ops = await traffic;
        const cut = ops.filter((o) => !o.answer).length;
        await server.start();

        // The database file itself: debits equal credits, counters agree with transfers, no key left in flight.
        const ledger = checkLedgerFile(join(dir, 'crash.db'));
        expect(ledger, `round ${round} (CRASH_SEED=${SEED})`).toEqual({
          unbalancedAccounts: [],
          driftedCounters: [],
          negativeBalances: [],
          keysInFlight: 0,
        });

        // Every key gets a final answer on retry: an acknowledged one replays the same body, a cut one either
        // replays (it committed before the kill) or executes now; never 4212, never 5xx.
        for (const op of ops) {
          const retry = await post(op.path, op.body, { 'idempotency-key': op.key });
          expect(retry.status, `${op.key} ${JSON.stringify(retry.body)}`).toBeLessThan(500);
          expect(retry.body?.code, op.key).not.toBe(4212);
          if (op.answer?.status === 200) {
            expect(retry.replayed, `${op.key} was acknowledged, so its record must be there`).toBe(true);
            expect(retry.body).toEqual(op.answer.body);
          }
          if (op.path === '/v1/card/create' && retry.status === 200 && !cards.includes(retry.body.cardId)) {
            cards.push(retry.body.cardId);
          }
          op.answer = retry;
        }
        everyOp.push(...ops);

        // Let every top-up settle and every webhook retry fall due.
        await post('/sandbox/v1/clock', { advanceSeconds: 18 * 3600 });
        const seen = await allCards();
        const created = everyOp.filter((o) => o.path === '/v1/card/create' && o.answer!.status === 200);
        expect(new Set(seen.keys()), 'the cards are exactly the acknowledged creates').toEqual(
          new Set(created.map((o) => o.answer!.body.cardId as string)),
        );

        const wallet = await post('/v1/wallet/assetList', {});
        const walletMicros = micros(wallet.body.assetList[0].availableAmount);
        const onCards = [...seen.values()].reduce((s, c) => s + c.available + c.frozen, 0);
        const spent = await clearedSpendMicros();
        expect(walletMicros + onCards + spent, 'seed == wallet + cards + cleared spend').toBe(SEED_BALANCE * MICRO);

        // Deliveries pending at the kill resume after the restart: every card's card.created arrives.
        await waitFor('every card.created delivered', () =>
          created.every((o) => delivered.has(o.answer!.body.cardId)),
        ).catch(() => undefined); // the missing ones are reported below
        const missing = created.filter((o) => !delivered.has(o.answer!.body.cardId)).map((o) => o.answer!.body.cardId);
        expect(missing, 'card.created events never delivered').toEqual([]);
        console.log(
          `[crash] round ${round}: ${ops.length} keyed ops (${cut} cut by the kill, all final on retry), ${created.length} cards`,
        );
      }
    },
    60_000 + ROUNDS * 20_000,
  );
});
