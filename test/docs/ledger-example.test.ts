import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROOT } from '../helpers/cli-process.js';
import { sim } from '../helpers/core.js';
import { sandboxTest as it } from '../helpers/fixtures.js';

// The partner's ledger docs/driving.md shows ("A ledger that agrees with card/asset") runs as printed: its funding from
// the partner's own calls (the fee rule, a deposit counted once card/asset shows it), its spends from the events, and
// it equals card/asset (the oracle: the sandbox's own answer, not this code) after every hard case of the network,
// a week of traffic, a debt covered by a deposit, and a cancellation; right after a deposit, card/asset is the ledger
// without that deposit's credit.

interface Ledger {
  created(credit: bigint): void;
  deposited(credit: bigint): void;
  settled(): void;
  onEvent(event: { type: string; data: Record<string, unknown> }): void;
  asset(): { available: bigint; frozen: bigint };
}
interface Example {
  micros(decimal: string | number): bigint;
  creditOf(amount: string, depositFee: string, openFee?: string): bigint;
  CardLedger: new () => Ledger;
}

const PAGE = readFileSync(join(ROOT, 'docs/driving.md'), 'utf8');
const HEADING = '### A ledger that agrees with card/asset';

let dir: string;
let example: Example;
beforeAll(async () => {
  const from = PAGE.indexOf(`\n${HEADING}\n`);
  expect(from, `docs/driving.md has "${HEADING}"`).toBeGreaterThan(0);
  const code = /^```js\n([\s\S]*?)^```$/m.exec(PAGE.slice(from))![1]!;
  dir = mkdtempSync(join(tmpdir(), 'ledger-example-'));
  writeFileSync(join(dir, 'ledger.mjs'), code);
  example = (await import(pathToFileURL(join(dir, 'ledger.mjs')).href)) as Example;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it.override({ accountOptions: { balance: 1000, depositFeeRate: '0.02' } });

it('equals card/asset through every hard case, a week of traffic, a debt, a deposit and a cancellation', async ({
  sb,
  acct,
}) => {
  const { micros, creditOf, CardLedger } = example;
  const ledger = new CardLedger();
  const seen = new Set<string>();
  const post = async (path: string, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
    const res = await sb.post(acct.apiKey, path, body, headers);
    expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  const simulate = (path: string, body: Record<string, unknown>) => post(`/sandbox/v1/${path}`, body);
  const keyed = (path: string, body: Record<string, unknown>) =>
    post(path, { currency: 'USDT', ...body }, { 'Idempotency-Key': crypto.randomUUID() });
  /** Every event not yet delivered to the ledger, each once, in the order they happened. */
  const deliver = async () => {
    const events = (await simulate('events', { limit: 1000 })).events as { id: string; type: string; data: never }[];
    for (const e of events.reverse()) {
      if (seen.has(e.id)) continue;
      seen.add(e.id);
      ledger.onEvent(e);
    }
  };
  const expectAgrees = async (when: string) => {
    await deliver();
    const asset = await post('/v1/card/asset', { cardId });
    expect([micros(asset.availableAmount), micros(asset.frozenAmount)], when).toEqual([
      ledger.asset().available,
      ledger.asset().frozen,
    ]);
  };

  const { fee } = (await post('/v1/card/binList')).availableCardBinList[0];
  const { cardId } = await keyed('/v1/card/create', { amount: 100 });
  ledger.created(creditOf('100', fee.deposit, fee.card));
  expect(ledger.asset().available).toBe(98_000_000n); // 100 at 2 %
  await expectAgrees('after card/create');

  await keyed('/v1/card/deposit', { cardId, amount: 50.55 });
  ledger.deposited(creditOf('50.55', fee.deposit)); // 49.539 floored: 49.53
  await expectAgrees('while the deposit settles: card/asset does not show it yet');
  await sb.advance(acct.apiKey, 3);
  ledger.settled();
  await expectAgrees('once card/asset shows the deposit');
  expect(ledger.asset().available).toBe(147_530_000n);

  const hotel = (await simulate('card/authorize', { cardId, amount: 40 })).transactionId;
  await simulate('transaction/increment', { transactionId: hotel, amount: 25.5 });
  await simulate('transaction/reverse', { transactionId: hotel, amount: 15.5 });
  await expectAgrees('a hold raised and partly given back');
  await simulate('transaction/clear', { transactionId: hotel });
  const shop = (await simulate('card/authorize', { cardId, amount: 30, currency: 'EUR' })).transactionId;
  await simulate('transaction/clear', { transactionId: shop, amount: 10, final: false });
  await expectAgrees('a part cleared on its own');
  await simulate('transaction/clear', { transactionId: shop });
  const dinner = (await simulate('card/authorize', { cardId, amount: 5 })).transactionId;
  await simulate('transaction/clear', { transactionId: dinner, amount: 6.5 });
  await simulate('transaction/refund', { transactionId: dinner, amount: 2 });
  await simulate('card/authorize', { cardId, amount: 1, declineReason: 'DO_NOT_HONOR' });
  await simulate('transaction/refund', { cardId, amount: 3 });
  await expectAgrees('clearings for the hold, in parts, for more, refunds and a decline');

  await simulate('traffic/start', { cardIds: [cardId], days: 7, perCardPerDay: 10, seed: 45 });
  await sb.advance(acct.apiKey, 8 * 86_400);
  await expectAgrees('a week of traffic');

  // A force post of 20 more than the card holds (traffic may already have taken it below zero).
  const beyond = (ledger.asset().available > 0n ? ledger.asset().available : 0n) + 20_000_000n;
  await simulate('transaction/force-post', { cardId, amount: Number(beyond / 10_000n) / 100 });
  await expectAgrees('a force post beyond the balance');
  expect(ledger.asset().available < 0n).toBe(true);
  await keyed('/v1/card/deposit', { cardId, amount: 30 });
  ledger.deposited(creditOf('30', fee.deposit));
  await sb.advance(acct.apiKey, 3);
  ledger.settled();
  await expectAgrees('a deposit that covers the debt first');

  await sb.advance(acct.apiKey, 8 * 86_400); // the holds still pending expire: a card holding one cannot be cancelled
  await expectAgrees('the last holds expired');
  await keyed('/v1/card/cancel', { cardId });
  await sb.advance(acct.apiKey, 5);
  await expectAgrees('after card.cancelled');
});

it('the events alone carry no funding: without the calls, the fold is short of card/asset by the credits', async ({
  sb,
  acct,
}) => {
  const { micros, CardLedger } = example;
  const key = { 'Idempotency-Key': crypto.randomUUID() };
  const { cardId } = (await sb.post(acct.apiKey, '/v1/card/create', { amount: 100, currency: 'USDT' }, key)).body;
  const eventsOnly = new CardLedger();
  const events = (await sim(sb, acct.apiKey, 'events', { limit: 1000 })).body.events;
  for (const e of events.reverse()) eventsOnly.onEvent(e);
  expect(events.map((e: { type: string; data: object }) => [e.type, Object.keys(e.data).sort()])).toEqual([
    ['card.created', ['binId', 'cardId', 'status']],
  ]);
  const asset = (await sb.post(acct.apiKey, '/v1/card/asset', { cardId })).body;
  expect(micros(asset.availableAmount) - eventsOnly.asset().available).toBe(98_000_000n);
});
