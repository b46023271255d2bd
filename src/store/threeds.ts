import type { Db } from './seam.js';

// SQL of 3DS challenges. No OTP is stored: it is derived from the server secret and the challenge id.

export interface ChallengeRow {
  id: string;
  account_id: string;
  card_id: string;
  event_id: string;
  created_at_ms: number;
  expires_at_ms: number;
  approved_at_ms: number | null;
}

export async function insertChallenge(db: Db, c: Omit<ChallengeRow, 'approved_at_ms'>): Promise<void> {
  await db.run(
    'INSERT INTO threeds_challenges (id, account_id, card_id, event_id, created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?)',
    [c.id, c.account_id, c.card_id, c.event_id, c.created_at_ms, c.expires_at_ms],
  );
}

export async function challengeRow(db: Db, accountId: string, id: string): Promise<ChallengeRow | undefined> {
  return (await db.get('SELECT * FROM threeds_challenges WHERE id = ? AND account_id = ?', [id, accountId])) as
    ChallengeRow | undefined;
}

export async function approveChallenge(db: Db, id: string, atMs: number): Promise<void> {
  await db.run('UPDATE threeds_challenges SET approved_at_ms = ? WHERE id = ?', [atMs, id]);
}

/** The challenge an event of type card.3ds.requested raised. */
export async function challengeIdOfEvent(db: Db, eventId: string): Promise<string | undefined> {
  return (await db.value('SELECT id FROM threeds_challenges WHERE event_id = ?', [eventId])) as string | undefined;
}

/** Part of the sandbox reset: the account's challenges. */
export async function resetChallenges(db: Db, accountId: string): Promise<void> {
  await db.run('DELETE FROM threeds_challenges WHERE account_id = ?', [accountId]);
}
