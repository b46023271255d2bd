import { CliFailure, type SandboxClient } from './client.js';
import { sampleMerchant } from './event-samples.js';

// The card network's hard cases `card-sandbox trigger` names (docs/cli.md): each a short sequence of simulation calls
// on a card, as docs/driving.md shows them, whose events are what a partner's ledger must survive.

export const NETWORK_CASES = [
  'increment',
  'partial-reversal',
  'partial-clearing',
  'over-clearing',
  'force-post',
  'unlinked-refund',
  'negative-balance',
] as const;
export type NetworkCase = (typeof NETWORK_CASES)[number];

export function isNetworkCase(value: string): value is NetworkCase {
  return (NETWORK_CASES as readonly string[]).includes(value);
}

/** An authorisation that must be approved: its transaction id. */
async function authorize(client: SandboxClient, cardId: string, amount: number): Promise<string> {
  const auth = await client.post('/sandbox/v1/card/authorize', { cardId, amount, ...sampleMerchant() });
  if (auth.status !== 'PENDING') {
    throw new CliFailure(
      `the authorisation on ${cardId} was ${String(auth.status)} (${String(auth.declineReason)})`,
      1,
    );
  }
  return String(auth.transactionId);
}

/** Runs the case on the card; answers the transaction it is about. */
export async function runNetworkCase(client: SandboxClient, name: NetworkCase, cardId: string): Promise<string> {
  const call = async (path: string, body: Record<string, unknown>) =>
    String((await client.post(path, body)).transactionId);
  switch (name) {
    case 'increment': {
      const transactionId = await authorize(client, cardId, 5);
      return call('/sandbox/v1/transaction/increment', { transactionId, amount: 2.5 });
    }
    case 'partial-reversal': {
      const transactionId = await authorize(client, cardId, 5);
      return call('/sandbox/v1/transaction/reverse', { transactionId, amount: 2 });
    }
    case 'partial-clearing': {
      const transactionId = await authorize(client, cardId, 6);
      await call('/sandbox/v1/transaction/clear', { transactionId, amount: 2, final: false });
      return transactionId;
    }
    case 'over-clearing': {
      const transactionId = await authorize(client, cardId, 5);
      return call('/sandbox/v1/transaction/clear', { transactionId, amount: 6.5 });
    }
    case 'force-post':
      return call('/sandbox/v1/transaction/force-post', { cardId, amount: 3, ...sampleMerchant('airline') });
    case 'unlinked-refund':
      return call('/sandbox/v1/transaction/refund', { cardId, amount: 2, ...sampleMerchant('retail') });
    case 'negative-balance': {
      // A force post of the whole available balance and 5 more: the card ends 5 below zero.
      const asset = await client.post('/v1/card/asset', { cardId });
      const available = Number(asset.availableAmount);
      return call('/sandbox/v1/transaction/force-post', {
        cardId,
        amount: Math.max(0, available) + 5,
        ...sampleMerchant('airline'),
      });
    }
  }
}
