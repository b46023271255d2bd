import { describe, expect } from 'vitest';
import { sandboxTest as it } from '../helpers/fixtures.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';

// docs/design.md section 2 (Identities and formats).
let sb: TestSandbox;
let acct: AccountHandle;

it.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

describe('Identities', () => {
  it('cardId is 22 digits: yyyyMMdd of issue on the account clock, then 14 random digits', async () => {
    await sb.advance(acct.apiKey, 45 * 86_400); // 2026-06-01 + 45 days on this account's clock only
    const res = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    expect(res.body.cardId).toMatch(/^20260716\d{14}$/);
    const other = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    expect(other.body.cardId.slice(8)).not.toBe(res.body.cardId.slice(8));
  });

  it('maskedCardNo ends with the last four digits of the PAN in both forms', async () => {
    const created = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    const { cardId } = created.body;
    const pan = (await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId })).body.cardNo as string;
    const detail = await sb.post(acct.apiKey, '/v1/card/detail', { cardId });
    expect(created.body.maskedCardNo).toBe(`**** **** **** ${pan.slice(-4)}`);
    expect(detail.body.maskedCardNo).toBe(`************${pan.slice(-4)}`);
  });
});
