import type request from 'supertest';
import { listEvents, type StoredEvent } from '../../src/domain/events.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

/** An account with a 0 % deposit fee (so card credits equal amounts) and a USDT balance. */
export async function fundedAccount(sb: TestSandbox, balance = 1000): Promise<AccountHandle> {
  return sb.account({ balance, depositFeeRate: '0' });
}

/** Issues a card loaded with `amount` USD; returns its id. */
export async function cardWith(sb: TestSandbox, key: string, amount: number): Promise<string> {
  const res = await sb.post(key, '/v1/card/create', { amount, currency: 'USDT' });
  if (res.status !== 200) throw new Error(`card/create failed: ${JSON.stringify(res.body)}`);
  return res.body.cardId as string;
}

export async function cardAsset(sb: TestSandbox, key: string, cardId: string) {
  const res = await sb.post(key, '/v1/card/asset', { cardId });
  return res.body as { availableAmount: string; frozenAmount: string };
}

export function sim(sb: TestSandbox, key: string, path: string, body: Record<string, unknown> = {}): request.Test {
  return sb.post(key, `/sandbox/v1/${path}`, body);
}

/** Events of the account, oldest first (what a webhook receiver would have seen, in order). */
export function eventsOf(sb: TestSandbox, accountId: string, type?: string): StoredEvent[] {
  return listEvents(sb.deps.db, accountId, { type, limit: 1000 }).reverse();
}
