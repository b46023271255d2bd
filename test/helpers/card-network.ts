import { expect } from 'vitest';
import type { TestRequest } from './client.js';
import { sim } from './core.js';
import type { TestSandbox } from './sandbox.js';

// The card network's first message through the simulation API: a merchant asks to authorise a payment on a card.

/** POST /sandbox/v1/card/authorize for a card: `body` holds the amount (USD unless `currency`) and the merchant. */
export function authorize(sb: TestSandbox, key: string, cardId: string, body: Record<string, unknown>): TestRequest {
  return sim(sb, key, 'card/authorize', { cardId, ...body });
}

/** An authorisation the card must hold (PENDING); its transaction id. */
export async function pendingAuthorization(
  sb: TestSandbox,
  key: string,
  cardId: string,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await authorize(sb, key, cardId, body);
  expect(res.body.status, JSON.stringify(res.body)).toBe('PENDING');
  return res.body.transactionId as string;
}
