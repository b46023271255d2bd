import fc from 'fast-check';

// Snapshots that hold together, for snapshot/import. The schema gives a snapshot's shape (schema-arbitrary.ts draws
// that), not what its rows say of each other, which an import checks before it writes a row (docs/developer-tools.md,
// "Snapshots"): every reference resolves inside the document (the BINs to ones this server has), an id names one
// row, the books balance (each ledger account's balance is the sum of its transfers, of positive amounts, only a
// source or a card below zero, the money within the 5,000,000,000 USDT cap), every timer waits on a thing of the
// snapshot, and the database's own rules hold (a transaction's numbers are unique per account, card and BIN).
// Written from those rules, not from the server's checks: a check that refuses a good document fails the test.

type Row = Record<string, unknown>;

/** The BIN every sandbox has: the one a drawn snapshot's cards are on. */
const BIN = 'VISA-EFI-454924';
/** Real TRON addresses: their base58check checksum is a domain check no pattern can state. */
const TRON = ['TJRabPrwbZy45sbavfcjinPJC18kjpRTv8', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'];

const ms = fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 });
const text = fc.string({ maxLength: 20, unit: 'grapheme-ascii' });
const flag = fc.constantFrom(0, 1);
const idOf = (prefix: string) => fc.stringMatching(/^[0-9A-Za-z]{10,16}$/).map((s) => prefix + s);
const some = <T>(arb: fc.Arbitrary<T>, maxLength: number, key: (t: T) => unknown) =>
  fc.uniqueArray(arb, { maxLength, selector: key });

const draws = fc.record({
  account: fc.record({
    id: idOf('acct_'),
    name: text,
    depositFeeRatePpm: fc.integer({ min: 0, max: 999_999 }),
    requireIdempotencyKey: flag,
    deposit: fc.oneof(
      fc.constantFrom({ mode: 'auto', address: null }, { mode: 'none', address: null }),
      fc.constantFrom(...TRON).map((address) => ({ mode: 'fixed', address })),
    ),
    createdAtMs: ms,
  }),
  clock: fc.record({ nowMs: ms, frozen: fc.boolean() }),
  bin: fc.record({
    title: text,
    fxRatePpm: fc.nat(100_000),
    openFeeMicros: fc.nat(10_000_000),
    atmRatePpm: fc.nat(100_000),
    spendDailyMicros: fc.nat(1e12),
    minimalDepositMicros: fc.nat(10_000_000),
    enabled: flag,
    inventory: fc.nat(1000),
    provisioning: flag,
  }),
  inventory: fc.option(fc.record({ available: fc.nat(1000), provisioning: flag }), { nil: undefined }),
  cards: some(
    fc.record({
      id: fc.stringMatching(/^[0-9]{22}$/),
      alias: fc.option(text, { nil: null }),
      status: fc.constantFrom('ACTIVE', 'FROZEN', 'CANCELLING', 'CANCELLED'),
      last4: fc.stringMatching(/^[0-9]{4}$/),
      openFeeMicros: fc.nat(10_000_000),
      createdAtMs: ms,
      /** The share of the wallet put on the card, in parts per thousand of what is left. */
      fundedPerMille: fc.nat(1000),
    }),
    3,
    (c) => c.id,
  ),
  seededMicros: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 1e15 })),
  transactions: fc.array(
    fc.record({
      card: fc.nat(),
      id: idOf('txn_'),
      kind: fc.constantFrom('SPEND', 'REFUND'),
      /** A purchase's state; a refund's is REFUND. */
      status: fc.constantFrom('PENDING', 'CLEARED', 'DECLINED', 'CANCELLED'),
      billAmountMicros: fc.nat(1e12),
      transactionAmountMicros: fc.nat(1e12),
      currency: fc.constantFrom('USD', 'EUR', 'JPY'),
      merchantName: text,
      merchantCountry: fc.constantFrom('US', 'DE', 'JP'),
      mccCategory: text,
      declineReason: fc.option(fc.constantFrom('INSUFFICIENT_FUNDS', 'DO_NOT_HONOR'), { nil: null }),
      refundOfEarlier: fc.boolean(),
      createdAtMs: ms,
      settledAtMs: fc.option(ms, { nil: null }),
    }),
    { maxLength: 4 },
  ),
  topups: fc.array(
    fc.record({
      card: fc.nat(),
      id: idOf('top_'),
      amountMicros: fc.integer({ min: 1, max: 1e12 }),
      feeMicros: fc.nat(1e9),
      createdAtMs: ms,
      settlesAtMs: ms,
      settledAtMs: fc.option(ms, { nil: null }),
    }),
    { maxLength: 2 },
  ),
  events: some(
    fc.record({
      id: idOf('evt_'),
      type: fc.constantFrom('card.created', 'card.frozen', 'transaction.created', 'card.3ds.requested'),
      createdS: fc.integer({ min: 1_700_000_000, max: 1_900_000_000 }),
      delivery: fc.option(
        fc.record({
          state: fc.constantFrom('pending', 'delivered', 'failed', 'cancelled', 'disabled'),
          attempts: fc.nat(10),
          nextAttemptAtMs: fc.option(ms, { nil: null }),
          createdAtMs: ms,
        }),
        { nil: undefined },
      ),
    }),
    3,
    (e) => e.id,
  ),
  challenge: fc.option(fc.record({ card: fc.nat(), event: fc.nat(), createdAtMs: ms, expiresAtMs: ms }), {
    nil: undefined,
  }),
  chainDeposits: some(
    fc.record({
      txId: fc.stringMatching(/^[0-9a-f]{64}$/),
      fromAddress: fc.constantFrom(...TRON),
      amountMicros: fc.integer({ min: 1, max: 1e12 }),
      initialConfirmations: fc.nat(20),
      createdAtMs: ms,
      creditsAtMs: ms,
      credited: fc.boolean(),
    }),
    2,
    (d) => d.txId,
  ),
  timers: fc.array(
    fc.record({
      kind: fc.constantFrom('card.cancel', 'txn.expire', 'topup.settle', 'chain.confirm'),
      on: fc.nat(),
      dueAtMs: ms,
    }),
    { maxLength: 3 },
  ),
});

type Draws = typeof draws extends fc.Arbitrary<infer T> ? T : never;

/**
 * The books: the seed and each credited chain deposit into the wallet, a share of the wallet onto each card; every
 * balance the sum of its transfers. Far below the cap: at most 1,000,000,000 USDT seeded and 2,000,000 deposited.
 * The card network's money stays out of them (the import weighs no transaction against the ledger).
 */
function ledger(d: Draws, accountId: string, at: number, credited: number[]) {
  const transfers: Row[] = [];
  const balances = new Map<string, number>([
    [`seed:${accountId}`, 0],
    [`wallet:${accountId}`, 0],
  ]);
  const move = (debitId: string, creditId: string, amountMicros: number, kind: string) => {
    if (amountMicros <= 0) return;
    transfers.push({ debitId, creditId, amountMicros, kind, ref: null, createdAtMs: at });
    balances.set(debitId, balances.get(debitId)! - amountMicros);
    balances.set(creditId, (balances.get(creditId) ?? 0) + amountMicros);
  };
  move(`seed:${accountId}`, `wallet:${accountId}`, d.seededMicros, 'seed');
  if (credited.length) balances.set(`chain:${accountId}`, 0);
  for (const amountMicros of credited) move(`chain:${accountId}`, `wallet:${accountId}`, amountMicros, 'chain');
  for (const card of d.cards) {
    balances.set(`card:${card.id}`, 0);
    const left = balances.get(`wallet:${accountId}`)!;
    move(`wallet:${accountId}`, `card:${card.id}`, Math.floor((left * card.fundedPerMille) / 1000), 'card.create');
  }
  const ledgerAccounts = [...balances].map(([id, balanceMicros]) => ({
    id,
    kind: id.slice(0, id.indexOf(':')),
    balanceMicros,
  }));
  return { ledgerAccounts, transfers };
}

function assemble(d: Draws): Row {
  const accountId = d.account.id;
  const at = d.clock.nowMs;
  const cards = d.cards.map(({ fundedPerMille: _share, ...card }) => ({ ...card, binId: BIN, seq: 0 }));
  cards.forEach((c, i) => (c.seq = i + 1));
  const cardOf = (n: number) => cards[n % cards.length]!;

  // A transaction needs a card; its numbers count up per account, per card and per BIN, from 1.
  const transactions: Row[] = [];
  const perCard = new Map<string, number>();
  const ids = new Set<string>();
  for (const t of cards.length ? d.transactions : []) {
    if (ids.has(t.id)) continue;
    ids.add(t.id);
    const card = cardOf(t.card);
    const cardSeq = (perCard.get(card.id) ?? 0) + 1;
    perCard.set(card.id, cardSeq);
    const earlier = transactions.find((x) => x.cardId === card.id && x.kind === 'SPEND');
    transactions.push({
      id: t.id,
      cardId: card.id,
      binId: BIN,
      kind: t.kind,
      status: t.kind === 'REFUND' ? 'REFUND' : t.status,
      billAmountMicros: t.billAmountMicros,
      billCurrency: 'USD',
      transactionAmountMicros: t.transactionAmountMicros,
      transactionCurrency: t.currency,
      holdMicros: t.kind === 'SPEND' && t.status === 'PENDING' ? t.billAmountMicros : 0,
      clearedMicros: t.kind === 'SPEND' && t.status === 'CLEARED' ? t.billAmountMicros : 0,
      refundedMicros: 0,
      merchantName: t.merchantName,
      merchantCountry: t.merchantCountry,
      mccCategory: t.mccCategory,
      declineReason: t.kind === 'SPEND' && t.status === 'DECLINED' ? (t.declineReason ?? 'DO_NOT_HONOR') : null,
      parentId: t.kind === 'REFUND' && t.refundOfEarlier && earlier ? earlier.id : null,
      createdAtMs: t.createdAtMs,
      settledAtMs: t.settledAtMs,
      acctSeq: transactions.length + 1,
      cardSeq,
      binSeq: transactions.length + 1,
    });
  }
  const topups = (cards.length ? d.topups : [])
    .filter((t, i, all) => all.findIndex((o) => o.id === t.id) === i)
    .map(({ card, ...t }) => ({
      ...t,
      cardId: cardOf(card).id,
      creditMicros: Math.max(0, t.amountMicros - t.feeMicros),
    }));
  const events = d.events.map((e) => ({ id: e.id, type: e.type, createdS: e.createdS, data: {} }));
  const webhookDeliveries = d.events.flatMap((e) => (e.delivery ? [{ eventId: e.id, ...e.delivery }] : []));
  const asked = events.filter((e) => e.type === 'card.3ds.requested');
  const threedsChallenges =
    d.challenge && cards.length && asked.length
      ? [
          {
            id: `3ds_${accountId}`,
            cardId: cardOf(d.challenge.card).id,
            eventId: asked[d.challenge.event % asked.length]!.id,
            createdAtMs: d.challenge.createdAtMs,
            expiresAtMs: d.challenge.expiresAtMs,
            approvedAtMs: null,
          },
        ]
      : [];
  // Deposits come to the account's own address: none without one.
  const address = d.account.deposit.address;
  const chainDeposits = (address ? d.chainDeposits : []).map(({ credited, ...c }, i) => ({
    ...c,
    address,
    creditedAtMs: credited ? c.creditsAtMs : null,
    seq: i + 1,
  }));
  // A timer waits on a thing of its kind the snapshot holds; with none, there is no such timer.
  const waitedOn: Record<string, string[]> = {
    'card.cancel': cards.map((c) => c.id),
    'txn.expire': transactions.map((t) => t.id as string),
    'topup.settle': topups.map((t) => t.id),
    'chain.confirm': chainDeposits.map((c) => c.txId),
  };
  const jobs = d.timers.flatMap(({ kind, on, dueAtMs }) => {
    const things = waitedOn[kind]!;
    return things.length ? [{ dueAtMs, kind, ref: things[on % things.length]! }] : [];
  });
  const sequences = [...perCard].map(([cardId, value]) => ({ scope: `txn-card:${cardId}`, value }));
  return {
    format: 'card-sandbox/account-snapshot',
    version: 1,
    exportedAt: new Date(d.clock.nowMs).toISOString(),
    account: {
      id: accountId,
      name: d.account.name,
      depositFeeRatePpm: d.account.depositFeeRatePpm,
      requireIdempotencyKey: d.account.requireIdempotencyKey,
      depositAddressMode: d.account.deposit.mode,
      depositAddress: d.account.deposit.address,
      defaultBinId: BIN,
      createdAtMs: d.account.createdAtMs,
    },
    clock: d.clock,
    bins: [{ id: BIN, bin: '454924', cardNetwork: 'Visa', ...d.bin }],
    sequences,
    binInventory: d.inventory ? [{ binId: BIN, ...d.inventory }] : [],
    cards,
    topups,
    transactions,
    ...ledger(
      d,
      accountId,
      at,
      chainDeposits.flatMap((c) => (c.creditedAtMs === null ? [] : [c.amountMicros])),
    ),
    events,
    jobs,
    webhook: null,
    webhookDeliveries,
    webhookAttempts: [],
    chainDeposits,
    threedsChallenges,
    faults: [],
    trafficRuns: [],
  };
}

/** A snapshot document whose rows hold together, as a partner might write one by hand. */
export function snapshotDocument(): fc.Arbitrary<Row> {
  return draws.map(assemble);
}
