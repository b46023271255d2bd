import { expect } from 'vitest';
import type { TestSandbox } from './sandbox.js';
import { micros } from './money.js';

// A partner's ledger, written as a partner would write it: from the webhook events' fields alone (in the order
// they arrive) and the partner's own funding of its cards. It knows nothing of the sandbox's code. Its rule is the
// one docs/design.md section 15 states: every transaction event carries the transaction's whole state after the
// change, so for a card
//   frozen    = sum of billAmount of the transactions whose last event is PENDING
//   available = funded - sum(billAmount of CLEARED) - frozen + sum(billAmount of REFUND)
// (DECLINED and CANCELLED count nothing), and a card whose card.cancelled arrived holds nothing any more (its
// balance went back to the wallet, and later refunds go there too). The oracle of the ledger-fold tests.

interface TxnState {
  cardId: string;
  status: string;
  billMicros: number;
  eventType: string;
}

export interface Envelope {
  type: string;
  data: Record<string, unknown>;
}

/** Micro-units as bill/list writes them: two decimals, signed. */
function cents(m: number): string {
  const sign = m < 0 ? '-' : '';
  const c = Math.round(Math.abs(m) / 10_000);
  return `${sign}${Math.floor(c / 100)}.${String(c % 100).padStart(2, '0')}`;
}

const LISTING: Record<string, string> = {
  PENDING: 'PENDING',
  CLEARED: 'COMPLETED',
  DECLINED: 'FAILED',
  CANCELLED: 'REVERTED',
  REFUND: 'REVERTED',
};

export class PartnerLedger {
  private readonly funded = new Map<string, number>();
  private readonly cancelled = new Set<string>();
  /** In the order each transaction was first seen: bill/list's order, oldest first. */
  private readonly txns = new Map<string, TxnState>();
  private seen = 0;

  /** What the partner itself put on a card: a card/create credit, a settled top-up, a debt paid at cancel. */
  fund(cardId: string, amountMicros: number): void {
    this.funded.set(cardId, (this.funded.get(cardId) ?? 0) + amountMicros);
  }

  /** Folds the events not yet folded (the list is every event so far, oldest first). */
  fold(events: readonly Envelope[]): void {
    for (const e of events.slice(this.seen)) this.apply(e);
    this.seen = events.length;
  }

  private apply(e: Envelope): void {
    if (e.type === 'card.cancelled') this.cancelled.add(String(e.data.cardId));
    if (!e.type.startsWith('transaction.')) return;
    const d = e.data;
    this.txns.set(String(d.transactionId), {
      cardId: String(d.cardId),
      status: String(d.status),
      billMicros: micros(d.billAmount as number),
      eventType: String(d.eventType),
    });
  }

  /** The transactions whose last event has this status (and event type), first seen first. */
  idsWith(status: string, eventType?: string): string[] {
    return [...this.txns]
      .filter(([, t]) => t.status === status && (eventType === undefined || t.eventType === eventType))
      .map(([id]) => id);
  }

  /** A transaction's bill amount as its last event stated it (micro-units). */
  billOf(transactionId: string): number | undefined {
    return this.txns.get(transactionId)?.billMicros;
  }

  /** The card's balances as the partner's ledger has them. */
  asset(cardId: string): { available: number; frozen: number } {
    if (this.cancelled.has(cardId)) return { available: 0, frozen: 0 };
    let held = 0;
    let spent = 0;
    let refunded = 0;
    for (const t of this.txns.values()) {
      if (t.cardId !== cardId) continue;
      if (t.status === 'PENDING') held += t.billMicros;
      if (t.status === 'CLEARED') spent += t.billMicros;
      if (t.status === 'REFUND') refunded += t.billMicros;
    }
    return { available: (this.funded.get(cardId) ?? 0) - spent - held + refunded, frozen: held };
  }

  /** Every transaction's cleared spend less refunds (refunds to a cancelled card included: they went to the wallet). */
  spentLessRefunds(): number {
    let total = 0;
    for (const t of this.txns.values()) {
      if (t.status === 'CLEARED') total += t.billMicros;
      if (t.status === 'REFUND') total -= t.billMicros;
    }
    return total;
  }

  /** The bill/list rows the ledger expects, newest first: [status, signed amount]. */
  listing(cardId?: string): [string, string][] {
    return [...this.txns.values()]
      .filter((t) => cardId === undefined || t.cardId === cardId)
      .map((t): [string, string] => [
        LISTING[t.status]!,
        cents(t.eventType === 'REFUND' ? t.billMicros : -t.billMicros),
      ])
      .reverse();
  }
}

/** Every row of bill/list (of the account, or of one card), page after page, as [status, amount]. */
export async function listedRows(sb: TestSandbox, key: string, cardId?: string): Promise<[string, string][]> {
  const rows: [string, string][] = [];
  for (let page = 1; ; page++) {
    const res = await sb.post(key, '/v1/bill/list', { ...(cardId ? { cardId } : {}), pageSize: 100, pageNumber: page });
    expect(res.status).toBe(200);
    for (const r of res.body.transactions as { status: string; amount: string }[]) rows.push([r.status, r.amount]);
    if (res.body.last) return rows;
  }
}

/** The fold agrees with card/asset for every card and (unless `listing` is false) with bill/list for the account. */
export async function expectLedgerAgrees(
  sb: TestSandbox,
  key: string,
  ledger: PartnerLedger,
  cardIds: readonly string[],
  opts: { listing?: boolean } = {},
): Promise<void> {
  for (const cardId of cardIds) {
    const res = await sb.post(key, '/v1/card/asset', { cardId });
    const api = { available: micros(res.body.availableAmount), frozen: micros(res.body.frozenAmount) };
    expect(api, `card ${cardId}`).toEqual(ledger.asset(cardId));
  }
  if (opts.listing !== false) expect(await listedRows(sb, key)).toEqual(ledger.listing());
}
