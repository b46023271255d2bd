import { MAX_ENTERED_MICROS } from '../accounts/accounts.js';
import type { Deps } from '../kernel/deps.js';
import { SLICE_MS } from '../kernel/fair-share.js';
import { DomainError } from '../kernel/errors.js';
import { LEDGER_KINDS, MAX_BALANCE_MICROS, mayBeNegative, type LedgerKind } from '../ledger/ledger.js';
import type { SnapshotDocument } from './export.js';
import { ATTEMPT_JOB_KIND } from './format.js';

// What a snapshot must hold together before a row of it is written (its schema, checked first, gives the fields and
// their types): every reference resolves inside it, the books balance, the money is within the sandbox's cap, and
// every timer is one this server runs, on something that is waiting for it. A document the domain wrote holds all of
// this; the checks are for one written or edited by hand, which a local sandbox or `serve --snapshot` takes.

type Row = Record<string, unknown>;

const invalid = (path: string, problem: string) => new DomainError('SNAPSHOT_INVALID', `${path}: ${problem}`);

/** The rows of a section, with each row's path for messages. */
function rowsOf(doc: SnapshotDocument, section: string): [string, Row][] {
  const value = doc[section];
  const rows = Array.isArray(value) ? (value as Row[]) : value ? [value as Row] : [];
  return rows.map((r, i) => [Array.isArray(value) ? `${section}[${i}]` : section, r]);
}

/** The values of a field over a section, refused when one repeats (an id names one row). */
function uniqueIds(doc: SnapshotDocument, section: string, field: string): Set<string> {
  const seen = new Set<string>();
  for (const [path, r] of rowsOf(doc, section)) {
    const id = r[field] as string;
    if (seen.has(id)) throw invalid(`${path}.${field}`, `${id} is there twice`);
    seen.add(id);
  }
  return seen;
}

function assertIn(ids: Set<string>, value: unknown, path: string, what: string): void {
  if (value !== null && !ids.has(value as string))
    throw invalid(path, `${String(value)} is no ${what} of the snapshot`);
}

/** Refuses a document that does not hold together (SNAPSHOT_INVALID naming the first problem's path). */
export function checkSnapshot(deps: Pick<Deps, 'jobs'>, doc: SnapshotDocument): void {
  for (const step of checkSteps(deps, doc)) step();
}

/**
 * `checkSnapshot` in slices: `pause()` awaited whenever SLICE_MS have passed between its steps (a section each), so
 * the check of a large document (some 30 ms for 10,000 rows) never holds the thread every tenant shares.
 */
export async function checkSnapshotInSlices(
  deps: Pick<Deps, 'jobs'>,
  doc: SnapshotDocument,
  pause: () => Promise<void>,
): Promise<void> {
  let endMs = performance.now() + SLICE_MS;
  for (const step of checkSteps(deps, doc)) {
    step();
    if (performance.now() > endMs) {
      await pause();
      endMs = performance.now() + SLICE_MS;
    }
  }
}

/** The checks of a document, in order, as steps sharing what the earlier ones found (the ids of each section). */
function checkSteps(deps: Pick<Deps, 'jobs'>, doc: SnapshotDocument): (() => void)[] {
  const accountId = doc.account.id;
  const ids: Record<string, Set<string>> = {};
  const unique =
    (section: string, field: string, name = section) =>
    () =>
      void (ids[name] = uniqueIds(doc, section, field));
  const refs = (section: string, check: (p: string, r: Row) => void) => () => {
    for (const [p, r] of rowsOf(doc, section)) check(p, r);
  };
  return [
    unique('bins', 'id'),
    unique('cards', 'id'),
    unique('transactions', 'id'),
    unique('events', 'id'),
    unique('topups', 'id'),
    unique('trafficRuns', 'id', 'runs'),
    unique('threedsChallenges', 'id'),
    unique('chainDeposits', 'txId'),
    unique('binInventory', 'binId'),
    unique('sequences', 'scope'),
    unique('webhookDeliveries', 'eventId'),
    () => assertIn(ids.bins!, doc.account.defaultBinId, 'account.defaultBinId', 'BIN'),
    refs('binInventory', (p, r) => assertIn(ids.bins!, r.binId, `${p}.binId`, 'BIN')),
    refs('cards', (p, r) => assertIn(ids.bins!, r.binId, `${p}.binId`, 'BIN')),
    refs('topups', (p, r) => assertIn(ids.cards!, r.cardId, `${p}.cardId`, 'card')),
    refs('transactions', (p, r) => {
      assertIn(ids.cards!, r.cardId, `${p}.cardId`, 'card');
      assertIn(ids.bins!, r.binId, `${p}.binId`, 'BIN');
      assertIn(ids.transactions!, r.parentId, `${p}.parentId`, 'transaction');
    }),
    refs('threedsChallenges', (p, r) => {
      assertIn(ids.cards!, r.cardId, `${p}.cardId`, 'card');
      assertIn(ids.events!, r.eventId, `${p}.eventId`, 'event');
    }),
    refs('webhookDeliveries', (p, r) => assertIn(ids.events!, r.eventId, `${p}.eventId`, 'event')),
    refs('webhookAttempts', (p, r) => assertIn(ids.events!, r.eventId, `${p}.eventId`, 'event')),
    () => checkLedger(doc, accountId, ids.cards!),
    () => {
      const { cards, topups, transactions, runs } = ids as Record<string, Set<string>>;
      checkJobs(deps, doc, { cards: cards!, topups: topups!, transactions: transactions!, runs: runs! });
    },
    refs('sequences', (p, r) => {
      const [kind, owner] = (r.scope as string).split(':');
      const ok = kind === 'txn-card' ? ids.cards!.has(owner!) : owner === accountId;
      if (!ok) throw invalid(`${p}.scope`, `${String(r.scope)} numbers nothing of the snapshot's account`);
    }),
  ];
}

/** Every transfer between the snapshot's ledger accounts, each balance the sum of its transfers, money within the cap. */
function checkLedger(doc: SnapshotDocument, accountId: string, cards: Set<string>): void {
  const balances = new Map<string, { kind: LedgerKind; stated: number; summed: number; path: string }>();
  for (const [p, r] of rowsOf(doc, 'ledgerAccounts')) {
    const id = r.id as string;
    const kind = r.kind as LedgerKind;
    const owner = LEDGER_KINDS[kind];
    if (owner === undefined) throw invalid(`${p}.kind`, `${String(r.kind)} is no ledger kind`);
    if (id !== `${kind}:${owner === 'card' ? id.slice(kind.length + 1) : accountId}`) {
      throw invalid(
        `${p}.id`,
        `a ${kind} ledger account is named ${kind}:<${owner === 'card' ? 'card id' : 'account id'}>`,
      );
    }
    if (owner === 'card') assertIn(cards, id.slice(kind.length + 1), `${p}.id`, 'card');
    if (balances.has(id)) throw invalid(`${p}.id`, `${id} is there twice`);
    balances.set(id, { kind, stated: r.balanceMicros as number, summed: 0, path: p });
  }
  for (const [p, r] of rowsOf(doc, 'transfers')) {
    const debit = balances.get(r.debitId as string);
    const credit = balances.get(r.creditId as string);
    if (!debit) throw invalid(`${p}.debitId`, `${String(r.debitId)} is no ledger account of the snapshot`);
    if (!credit) throw invalid(`${p}.creditId`, `${String(r.creditId)} is no ledger account of the snapshot`);
    debit.summed -= r.amountMicros as number;
    credit.summed += r.amountMicros as number;
  }
  let entered = 0;
  for (const [id, b] of balances) {
    if (b.stated !== b.summed) {
      throw invalid(`${b.path}.balanceMicros`, `${b.stated}, but the transfers of ${id} add up to ${b.summed}`);
    }
    if (b.stated < 0 && !mayBeNegative(b.kind)) throw invalid(`${b.path}.balanceMicros`, 'a negative balance');
    // The bounds every movement is held to (ledger.ts, accounts.ts), so a loaded account could have been made here.
    if (Math.abs(b.stated) > MAX_BALANCE_MICROS) {
      throw invalid(`${b.path}.balanceMicros`, `past the ${MAX_BALANCE_MICROS / 1e6} USDT any balance may hold`);
    }
    if (b.kind === 'seed' || b.kind === 'chain' || b.kind === 'goodwill') entered -= b.stated;
  }
  for (const [, r] of rowsOf(doc, 'chainDeposits')) if (r.creditedAtMs === null) entered += r.amountMicros as number;
  if (entered > MAX_ENTERED_MICROS) {
    throw invalid('ledgerAccounts', `the money in it is past the ${MAX_ENTERED_MICROS / 1e6} USDT an account may hold`);
  }
}

type Waited = 'topups' | 'cards' | 'transactions' | 'chainDeposits' | 'runs';

/**
 * The timers a snapshot holds, and what each waits on (its ref names one of them; a traffic timer's ref starts with
 * its run's id). Every kind of timer the server runs is here, but the webhook attempt's, made again from the
 * pending deliveries.
 * @internal exported for the test that holds this list to the registered kinds
 */
export const SNAPSHOT_TIMERS: Readonly<Record<string, Waited>> = {
  'topup.settle': 'topups',
  'card.cancel': 'cards',
  'txn.expire': 'transactions',
  'chain.confirm': 'chainDeposits',
  'traffic.day': 'runs',
  'traffic.step': 'runs',
};

/** Each timer is one this server runs, on a thing of the snapshot waiting for it. */
function checkJobs(
  deps: Pick<Deps, 'jobs'>,
  doc: SnapshotDocument,
  ids: { cards: Set<string>; topups: Set<string>; transactions: Set<string>; runs: Set<string> },
): void {
  const waited: Record<Waited, Set<string>> = {
    ...ids,
    chainDeposits: new Set(rowsOf(doc, 'chainDeposits').map(([, r]) => r.txId as string)),
  };
  for (const [p, r] of rowsOf(doc, 'jobs')) {
    const kind = r.kind as string;
    const on = SNAPSHOT_TIMERS[kind];
    if (kind === ATTEMPT_JOB_KIND || !deps.jobs.knows(kind) || on === undefined) {
      throw invalid(`${p}.kind`, `${kind} is no timer a snapshot holds`);
    }
    const ref = kind.startsWith('traffic.') ? (r.ref as string).split(':')[0] : r.ref;
    assertIn(waited[on], ref, `${p}.ref`, `thing a ${kind} timer waits on`);
  }
}
