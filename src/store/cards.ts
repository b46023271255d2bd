import type { Db } from './seam.js';
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
export async function ownedCardRow(db: Db, accountId: string, cardId: string): Promise<CardRow | undefined> {
  return (await db.get('SELECT * FROM cards WHERE id = ? AND account_id = ?', [cardId, accountId])) as
    CardRow | undefined;
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
export async function insertCard(db: Db, c: Omit<CardRow, 'status'>): Promise<void> {
  const seq = await nextSeq(db, `cards:${c.account_id}`);
  await db.run(
    `INSERT INTO cards (id, account_id, bin_id, alias, status, last4, open_fee_micros, created_at_ms, seq)
       VALUES (?, ?, ?, ?, 'ACTIVE', ?, ?, ?, ?)`,
    [c.id, c.account_id, c.bin_id, c.alias, c.last4, c.open_fee_micros, c.created_at_ms, seq],
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
