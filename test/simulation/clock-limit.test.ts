import { expect } from 'vitest';
import { fundedTest as it } from '../helpers/fixtures.js';

// The account clock has an upper bound: card ids carry the issue date as yyyyMMdd and the expiry is MM/YY three
// years on, so a clock past 9000-01-01 would give ids of another length and expiry dates from the wrong century.

it('refuses to advance the account clock past 9000-01-01 with a clear 400, and changes nothing', async ({
  sb,
  acct,
}) => {
  const before = await sb.post(acct.apiKey, '/sandbox/v1/clock', {});
  const years = 315_360_000; // the most one call may advance: ten years of 365 days
  let last = before;
  while (last.status === 200) last = await sb.post(acct.apiKey, '/sandbox/v1/clock', { advanceSeconds: years });
  expect(last.status).toBe(400);
  expect(last.body).toEqual({
    code: 400,
    message:
      'advanceSeconds would take the account clock past 9000-01-01T00:00:00.000Z, the sandbox limit ' +
      '(card ids and expiry dates are written with four-digit years)',
  });
  // The last advance that fitted, worked out here: whole ten-year steps from the start until 9000-01-01.
  const startMs = Date.parse(before.body.now as string);
  const steps = Math.floor((Date.UTC(9000, 0, 1) - startMs) / (years * 1000));
  const expected = new Date(startMs + steps * years * 1000);
  const now = (await sb.post(acct.apiKey, '/sandbox/v1/clock', {})).body.now as string;
  expect(now).toBe(expected.toISOString());
  const year = String(expected.getUTCFullYear());
  const card = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
  expect(card.body.cardId).toMatch(new RegExp(`^${year}\\d{18}$`));
  const info = await sb.post(acct.apiKey, '/v1/card/sensitiveInfo', { cardId: card.body.cardId });
  expect(info.body.expiryDate).toMatch(new RegExp(`^\\d\\d/${String(Number(year) + 3).slice(2)}$`));
});
