import { expect } from 'vitest';
import type { TestSandbox } from '../helpers/sandbox.js';

// The BINs the card tests use: the default one as the API shows it, and another put through the operator API.

export const DEFAULT_BIN = 'VISA-EFI-454924';

/** The default BIN as card/binList and card/detail show it. */
export const DEFAULT_BIN_VIEW = {
  id: DEFAULT_BIN,
  title: 'Ether Card',
  bin: '454924',
  cardNetwork: 'Visa',
  fee: { deposit: '0.02', fx: '0.006', card: '0', atm: '0.02' },
  limit: { spendDaily: '100000', minimalDeposit: '1' },
  enabled: true,
};

/** Creates or changes a BIN through the operator API (PUT /admin/v1/bins/:binId). */
export async function putBin(sb: TestSandbox, binId: string, body: Record<string, unknown>): Promise<void> {
  const res = await sb.admin('put', `/admin/v1/bins/${binId}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}
