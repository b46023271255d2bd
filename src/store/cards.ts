import { sql, type Db } from './db.js';
import { nextSeq } from './sequences.js';

// SQL of cards. A card's status moves ACTIVE <-> FROZEN, then CANCELLING -> CANCELLED.

export type CardStatus = 'ACTIVE' | 'FROZEN' | 'CANCELLING' | 'CANCELLED';

export interface CardRow {
  id: string;
  account_id: string;
  bin_id: string;
  alias: string | null;
  status: CardStatus;
  last4: string;
  open_fee_micros: number;
  created_at_ms: number;
}

/** The card if this account owns it. */
export function ownedCardRow(db: Db, accountId: string, cardId: string): CardRow | undefined {
  return sql(db, 'SELECT * FROM cards WHERE id = ? AND account_id = ?').get(cardId, accountId) as CardRow | undefined;
}

/** The account's cards (of one status, when given), newest first. */
export function cardRowsOf(db: Db, accountId: string, status?: CardStatus): CardRow[] {
  const rows = status
    ? sql(db, 'SELECT * FROM cards WHERE account_id = ? AND status = ? ORDER BY seq DESC').all(accountId, status)
    : sql(db, 'SELECT * FROM cards WHERE account_id = ? ORDER BY seq DESC').all(accountId);
  return rows as CardRow[];
}

/** Cards of the account that are not CANCELLED. */
export function liveCardCount(db: Db, accountId: string): number {
  return sql(db, "SELECT COUNT(*) FROM cards WHERE account_id = ? AND status != 'CANCELLED'")
    .pluck()
    .get(accountId) as number;
}

/** A new ACTIVE card, numbered after the account's last one. */
export function insertCard(db: Db, c: Omit<CardRow, 'status'>): void {
  const seq = nextSeq(db, `cards:${c.account_id}`);
  sql(
    db,
    `INSERT INTO cards (id, account_id, bin_id, alias, status, last4, open_fee_micros, created_at_ms, seq)
       VALUES (?, ?, ?, ?, 'ACTIVE', ?, ?, ?, ?)`,
  ).run(c.id, c.account_id, c.bin_id, c.alias, c.last4, c.open_fee_micros, c.created_at_ms, seq);
}

export function setCardStatus(db: Db, cardId: string, status: CardStatus): void {
  sql(db, 'UPDATE cards SET status = ? WHERE id = ?').run(status, cardId);
}

export function markCardCancelling(db: Db, cardId: string): void {
  sql(db, "UPDATE cards SET status = 'CANCELLING' WHERE id = ?").run(cardId);
}

/** The owner of a card still CANCELLING; undefined once it is not. */
export function cancellingCardAccount(db: Db, cardId: string): string | undefined {
  const row = sql(db, "SELECT account_id FROM cards WHERE id = ? AND status = 'CANCELLING'").get(cardId) as
    { account_id: string } | undefined;
  return row?.account_id;
}

export function markCardCancelled(db: Db, cardId: string): void {
  sql(db, "UPDATE cards SET status = 'CANCELLED' WHERE id = ?").run(cardId);
}
