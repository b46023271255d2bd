import type { Db } from './seam.js';

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
export async function ownedCardRow(db: Db, accountId: string, cardId: string): Promise<CardRow | undefined> {
  return (await db.get('SELECT * FROM cards WHERE id = ? AND account_id = ?', [cardId, accountId])) as
    CardRow | undefined;
}

/** The account's card, and whether a top-up of it is settling: what a change to the card checks first, in one read. */
export async function ownedCardRowSettling(
  db: Db,
  accountId: string,
  cardId: string,
): Promise<(CardRow & { settling: number }) | undefined> {
  return (await db.get(
    `SELECT c.*, EXISTS (SELECT 1 FROM topups t WHERE t.card_id = c.id AND t.settled_at_ms IS NULL) AS settling
       FROM cards c WHERE c.id = ? AND c.account_id = ?`,
    [cardId, accountId],
  )) as (CardRow & { settling: number }) | undefined;
}

/** The account's cards (of one status, when given), newest first. */
export async function cardRowsOf(db: Db, accountId: string, status?: CardStatus): Promise<CardRow[]> {
  const rows = status
    ? await db.all('SELECT * FROM cards WHERE account_id = ? AND status = ? ORDER BY seq DESC', [accountId, status])
    : await db.all('SELECT * FROM cards WHERE account_id = ? ORDER BY seq DESC', [accountId]);
  return rows as CardRow[];
}

/** Cards of the account that are not CANCELLED. */
export async function liveCardCount(db: Db, accountId: string): Promise<number> {
  return (await db.value("SELECT COUNT(*) FROM cards WHERE account_id = ? AND status != 'CANCELLED'", [
    accountId,
  ])) as number;
}

/** A new ACTIVE card, numbered after the account's last one. */
/**
 * The card is its account's next in order (seq, dense from 1): one more than the last, read through the index the
 * listing pages by, in the insert itself. The account's writes run one after another (its lock), so no two read the
 * same last.
 */
export async function insertCard(db: Db, c: Omit<CardRow, 'status'>): Promise<void> {
  await db.run(
    `INSERT INTO cards (id, account_id, bin_id, alias, status, last4, open_fee_micros, created_at_ms, seq)
       VALUES (?, ?, ?, ?, 'ACTIVE', ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM cards WHERE account_id = ?))`,
    [c.id, c.account_id, c.bin_id, c.alias, c.last4, c.open_fee_micros, c.created_at_ms, c.account_id],
  );
}

export async function setCardStatus(db: Db, cardId: string, status: CardStatus): Promise<void> {
  await db.run('UPDATE cards SET status = ? WHERE id = ?', [status, cardId]);
}

export async function markCardCancelling(db: Db, cardId: string): Promise<void> {
  await db.run("UPDATE cards SET status = 'CANCELLING' WHERE id = ?", [cardId]);
}

/** The owner of a card still CANCELLING; undefined once it is not. */
export async function cancellingCardAccount(db: Db, cardId: string): Promise<string | undefined> {
  const row = (await db.get("SELECT account_id FROM cards WHERE id = ? AND status = 'CANCELLING'", [cardId])) as
    { account_id: string } | undefined;
  return row?.account_id;
}

export async function markCardCancelled(db: Db, cardId: string): Promise<void> {
  await db.run("UPDATE cards SET status = 'CANCELLED' WHERE id = ?", [cardId]);
}
