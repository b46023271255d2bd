import { sql, type Db } from './db.js';

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

export function insertChallenge(db: Db, c: Omit<ChallengeRow, 'approved_at_ms'>): void {
  sql(
    db,
    'INSERT INTO threeds_challenges (id, account_id, card_id, event_id, created_at_ms, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(c.id, c.account_id, c.card_id, c.event_id, c.created_at_ms, c.expires_at_ms);
}

export function challengeRow(db: Db, accountId: string, id: string): ChallengeRow | undefined {
  return sql(db, 'SELECT * FROM threeds_challenges WHERE id = ? AND account_id = ?').get(id, accountId) as
    ChallengeRow | undefined;
}

export function approveChallenge(db: Db, id: string, atMs: number): void {
  sql(db, 'UPDATE threeds_challenges SET approved_at_ms = ? WHERE id = ?').run(atMs, id);
}

/** The challenge an event of type card.3ds.requested raised. */
export function challengeIdOfEvent(db: Db, eventId: string): string | undefined {
  return sql(db, 'SELECT id FROM threeds_challenges WHERE event_id = ?').pluck().get(eventId) as string | undefined;
}

/** Part of the sandbox reset: the account's challenges. */
export function resetChallenges(db: Db, accountId: string): void {
  sql(db, 'DELETE FROM threeds_challenges WHERE account_id = ?').run(accountId);
}
