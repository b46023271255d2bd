import { createHash, timingSafeEqual } from 'node:crypto';
import { assertInTransaction } from '../../store/db.js';
import { liveCardCount } from '../../store/cards.js';
import { approveChallenge, challengeIdOfEvent, challengeRow, insertChallenge } from '../../store/threeds.js';
import { getOwnedCard } from '../cards/cards.js';
import { catchUp } from '../kernel/clock.js';
import type { Deps, EventEnricher } from '../kernel/deps.js';
import { DomainError } from '../kernel/errors.js';
import { challengeData } from '../events/data.js';
import { emitEvent } from '../events/outbox.js';
import { merchantFor } from './merchants.js';
import type { ServerSecret } from '../kernel/secrets.js';
import { findWebhookConfig } from '../webhooks/config.js';

// 3DS / payment OTP challenges. The OTP is never stored: it is an HMAC of the server secret and the challenge
// id, derived when the challenge is raised (for the simulation answer) and when a webhook body is built
// (only if the account's webhook config has deliver3dsCode). It never enters the outbox, a log or a read.

const OTP_LIFETIME_MS = 600_000;
type ChallengeType = 'payment' | 'binding';
export type VerifyResult = 'APPROVED' | 'INVALID_OTP' | 'EXPIRED';

/** The challenge's 6-digit OTP. */
function otpFor(secret: ServerSecret, challengeId: string): string {
  return String(secret.hmac('3ds-otp', challengeId).readUInt32BE(0) % 1_000_000).padStart(6, '0');
}

export interface ChallengeInput {
  challengeId: string;
  cardId: string;
  type: ChallengeType;
  merchant: string;
  amountMicros?: number;
  currency?: string;
  /** Whether the card has a dedicated 3DS inbox; without one, cardId is set only if the account owns one card. */
  dedicatedInbox: boolean;
}

/** card/3ds: raises `card.3ds.requested` with the spec's fields; answers the OTP to the simulation caller only. */
/** A plausible payment amount (1.00 to 500.00) for a payment challenge raised without one, fixed by its id. */
function defaultPaymentMicros(challengeId: string): number {
  const cents = 100 + (createHash('sha256').update(challengeId).digest().readUInt32BE(0) % 49_901);
  return cents * 10_000;
}

/**
 * sandbox/v1/card/3ds: raises a challenge on a card at the account's caught-up "now". A merchant left out is made up
 * (awaited before the transaction); a payment always has an amount, a binding shows one only when the caller gave it.
 */
export async function challengeCard(
  deps: Deps,
  accountId: string,
  given: Omit<ChallengeInput, 'challengeId' | 'merchant'> & { merchant?: string },
) {
  const challengeId = 'tds_' + deps.ids.base62(24);
  const merchant = given.merchant ?? (await merchantFor(challengeId, {})).merchantName;
  let { amountMicros, currency } = given;
  if (given.type === 'payment') {
    amountMicros ??= defaultPaymentMicros(challengeId);
    currency ??= 'USD';
  } else if (amountMicros !== undefined) {
    currency ??= 'USD';
  }
  const input = { ...given, challengeId, merchant, amountMicros, currency };
  const nowMs = catchUp(deps, accountId);
  return deps.transactions.run(() => raiseChallenge(deps, accountId, input, nowMs));
}

function raiseChallenge(deps: Deps, accountId: string, input: ChallengeInput, nowMs: number) {
  assertInTransaction(deps.db, 'raiseChallenge');
  const card = getOwnedCard(deps, accountId, input.cardId);
  if (card.status === 'CANCELLED') throw new DomainError('CARD_CANCELLED');
  const expiresAt = nowMs + OTP_LIFETIME_MS;
  const resolvesToCard = input.dedicatedInbox || liveCardCount(deps.db, accountId) === 1;
  const event = emitEvent(
    deps,
    accountId,
    nowMs,
    'card.3ds.requested',
    challengeData({
      type: input.type,
      merchant: input.merchant,
      amountMicros: input.amountMicros,
      currency: input.currency,
      cardId: resolvesToCard ? card.id : undefined,
      last4: card.last4,
    }),
  );
  insertChallenge(deps.db, {
    id: input.challengeId,
    account_id: accountId,
    card_id: card.id,
    event_id: event.id,
    created_at_ms: nowMs,
    expires_at_ms: expiresAt,
  });
  return {
    challengeId: input.challengeId,
    otp: otpFor(deps.secret, input.challengeId),
    expiresAt: new Date(expiresAt).toISOString(),
  };
}

/** 3ds/verify: EXPIRED from 600 s on; a code works once, then it is INVALID_OTP like any wrong code. */
export function verifyChallenge(
  deps: Deps,
  accountId: string,
  challengeId: string,
  otp: string,
  nowMs: number,
): VerifyResult {
  assertInTransaction(deps.db, 'verifyChallenge');
  const row = challengeRow(deps.db, accountId, challengeId);
  if (!row) throw new DomainError('CHALLENGE_NOT_FOUND');
  if (nowMs >= row.expires_at_ms) return 'EXPIRED';
  const expected = Buffer.from(otpFor(deps.secret, challengeId));
  const given = Buffer.from(otp);
  const matches = given.length === expected.length && timingSafeEqual(given, expected);
  if (!matches || row.approved_at_ms !== null) return 'INVALID_OTP';
  approveChallenge(deps.db, challengeId, nowMs);
  return 'APPROVED';
}

/** The delivery-only `otp` of a 3DS event, when the account's webhook config asks for codes. */
export const otpField: EventEnricher = (deps, event) => {
  if (event.type !== 'card.3ds.requested' || !findWebhookConfig(deps, event.accountId)?.deliver3dsCode) return;
  const id = challengeIdOfEvent(deps.db, event.id);
  return id ? { otp: otpFor(deps.secret, id) } : undefined;
};
