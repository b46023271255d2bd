import type { Db } from './seam.js';

// SQL of card top-ups: the wallet is debited at once, the card credited when the top-up settles.

export interface TopUpRow {
  id: string;
  account_id: string;
  card_id: string;
  amount_micros: number;
  credit_micros: number;
  fee_micros: number;
  created_at_ms: number;
  settles_at_ms: number;
  settled_at_ms: number | null;
}

/** The card's top-up settling first (for the hint of the 4007 it causes). */
export async function firstSettlingTopUp(db: Db, cardId: string): Promise<TopUpRow | undefined> {
  return (await db.get(
    'SELECT * FROM topups WHERE card_id = ? AND settled_at_ms IS NULL ORDER BY settles_at_ms, id LIMIT 1',
    [cardId],
  )) as TopUpRow | undefined;
}

export async function insertTopUp(db: Db, t: Omit<TopUpRow, 'settled_at_ms'>): Promise<void> {
  await db.run(
    `INSERT INTO topups (id, account_id, card_id, amount_micros, credit_micros, fee_micros, created_at_ms, settles_at_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    [t.id, t.account_id, t.card_id, t.amount_micros, t.credit_micros, t.fee_micros, t.created_at_ms, t.settles_at_ms],
  );
}

/**
 * Marks the top-up settled at `atMs` and answers it, if it had not settled yet: the settlement's read and its mark in
 * one statement (on PostgreSQL every statement is a round trip).
 */
export async function settleTopUpRow(db: Db, id: string, atMs: number): Promise<TopUpRow | undefined> {
  return (await db.get('UPDATE topups SET settled_at_ms = ? WHERE id = ? AND settled_at_ms IS NULL RETURNING *', [
    atMs,
    id,
  ])) as TopUpRow | undefined;
}
