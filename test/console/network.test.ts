import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { waitFor } from '../helpers/wait.js';
import { useConsole, expectAccessible, shown } from './browser.js';

// The console's forms for the card network's hard cases and for traffic (docs/console.md), in a real browser: each
// form makes the simulation call it names, and the page and the API agree on what it did. A card a clearing took
// below zero says so plainly.

let page: Page;
let sb: TestSandbox;
let base: string;
let acct: AccountHandle;
let cardId: string;
let authId: string;

const api = async (path: string, body: unknown = {}) => {
  const res = await sb.post(acct.apiKey, path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const flash = () => page.locator('.flash');
const form = (name: string) => page.getByRole('form', { name, exact: true });
const asset = async () => {
  const a = await api('/v1/card/asset', { cardId });
  return [a.availableAmount, a.frozenAmount];
};

useConsole({ balance: 1000, depositFeeRate: '0' }, (w) => {
  ({ sb, base, acct } = w);
  if (w.page) page = w.page;
});

describe('the Simulate page: the card network hard cases and traffic', { timeout: 120_000 }, () => {
  it('signs in; the page offers a form for each message and for traffic, and is accessible', async () => {
    cardId = (await api('/v1/card/create', { amount: 50, currency: 'USDT', alias: 'Hotel card' })).cardId;
    authId = (await api('/sandbox/v1/card/authorize', { cardId, amount: 30, merchantName: 'HARBOR HOTEL' }))
      .transactionId;
    await page.goto(base + '/console/signin');
    await page.getByLabel('API key').fill(acct.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(base + '/console');
    await page.goto(base + '/console/simulate');
    for (const name of [
      'Increment',
      'Partial reversal',
      'Clear an amount',
      'Force post',
      'Goodwill credit',
      'Traffic',
    ]) {
      expect(await form(name).count(), name).toBe(1);
    }
    await expectAccessible(page, 'simulate');
  });

  it('Increment raises the pending hold by the amount', async () => {
    await form('Increment').getByLabel('Transaction').selectOption(authId);
    await form('Increment').getByLabel('Amount').fill('10');
    await form('Increment').getByRole('button', { name: 'Increment' }).click();
    await expect.poll(() => flash().textContent()).toContain(`Increment approved: ${authId} now holds 40.00 USD`);
    expect(await asset()).toEqual(['10', '40']);
  });

  it('Partial reversal gives part of the hold back and leaves the rest pending', async () => {
    await form('Partial reversal').getByLabel('Transaction').selectOption(authId);
    await form('Partial reversal').getByLabel('Amount').fill('5');
    await form('Partial reversal').getByRole('button', { name: 'Partial reversal' }).click();
    await expect.poll(() => flash().textContent()).toContain(`Reversed: ${authId} is PENDING, 35.00 USD`);
    expect(await asset()).toEqual(['15', '35']);
  });

  it('Clear an amount clears a part on its own, then the rest for more: the card goes below zero and says so', async () => {
    const clear = form('Clear an amount');
    await clear.getByLabel('Transaction').selectOption(authId);
    await clear.getByLabel('Amount').fill('15');
    await clear.getByLabel('Final clearing').selectOption('false');
    await clear.getByRole('button', { name: 'Clear an amount' }).click();
    await expect.poll(() => flash().textContent()).toContain('the authorisation keeps 20.00 USD pending');
    await form('Clear an amount').getByLabel('Transaction').selectOption(authId);
    await form('Clear an amount').getByLabel('Amount').fill('45');
    await form('Clear an amount').getByRole('button', { name: 'Clear an amount' }).click();
    await expect.poll(() => flash().textContent()).toContain(`Cleared: ${authId} at 45.00 USD`);
    expect(await asset()).toEqual(['-10', '0']);
    await page.goto(`${base}/console/cards/${cardId}`);
    const available = page.getByTestId('card-available');
    await expect.poll(() => available.textContent()).toContain(`${shown('-10')} USD`);
    expect(await available.textContent()).toContain('Below zero');
    expect(await page.getByTestId('card-debt').textContent()).toContain('declines every authorisation');
    await page.goto(base + '/console/cards');
    expect(await page.locator(`tr[data-card-id="${cardId}"]`).textContent()).toContain('Below zero');
  });

  it('Force post clears with no authorisation; Goodwill credit credits the card', async () => {
    await page.goto(base + '/console/simulate');
    await form('Force post').getByLabel('Card').selectOption(cardId);
    await form('Force post').getByLabel('Amount').fill('4.50');
    await form('Force post').getByLabel('Merchant').fill('SKYLINE AIRWAYS');
    await form('Force post').getByRole('button', { name: 'Force post' }).click();
    await expect.poll(() => flash().textContent()).toContain('Force post CLEARED');
    await form('Goodwill credit').getByLabel('Card').selectOption(cardId);
    await form('Goodwill credit').getByLabel('Amount').fill('20');
    await form('Goodwill credit').getByRole('button', { name: 'Goodwill credit' }).click();
    await expect.poll(() => flash().textContent()).toContain('Refund created');
    const rows = (await api('/v1/bill/list', { cardId })).transactions.slice(0, 2);
    expect(rows).toMatchObject([
      { amount: '20.00', status: 'REVERTED' },
      { merchant: 'SKYLINE AIRWAYS', amount: '-4.50', status: 'COMPLETED' },
    ]);
    expect(await asset()).toEqual(['5.5', '0']);
  });

  it('Traffic starts a seeded run the page lists, and Stop traffic cancels what has not run', async () => {
    const traffic = form('Traffic');
    await traffic.getByLabel('Days').fill('3');
    await traffic.getByLabel('Per card per day').fill('5');
    await traffic.getByLabel('Seed').fill('9');
    await traffic.getByRole('button', { name: 'Start traffic' }).click();
    await expect.poll(() => flash().textContent()).toContain('(seed 9)');
    const [run] = (await api('/sandbox/v1/traffic/list')).runs;
    expect(run).toMatchObject({ seed: 9, days: 3, perCardPerDay: 5, status: 'running', cardIds: [cardId] });
    const row = page.locator(`tr[data-traffic-id="${run.trafficId}"]`);
    await row.getByRole('button', { name: 'Stop traffic' }).click();
    await expect.poll(() => flash().textContent()).toContain(`Traffic stopped: ${run.trafficId}`);
    expect((await api('/sandbox/v1/traffic/list')).runs[0].status).toBe('stopped');
    await expect.poll(() => page.locator(`tr[data-traffic-id="${run.trafficId}"]`).textContent()).toContain('stopped');
  });
});

describe('the Simulate page: faults that hold', { timeout: 120_000 }, () => {
  it('Release held requests lets a request a hold rule held go on, and says how many went', async () => {
    await api('/sandbox/v1/faults', { rules: [{ path: '/v1/card/freeze', count: 1, hold: true }] });
    // .then sends it now (a supertest request goes out when awaited).
    const freeze = sb.post(acct.apiKey, '/v1/card/freeze', { cardId }).then((r) => r);
    await waitFor('the freeze to be held', () => sb.deps.heldRequests.heldCount(acct.accountId) === 1);
    await page.goto(base + '/console/simulate');
    await page.getByRole('button', { name: 'Release held requests' }).click();
    await expect.poll(() => flash().textContent()).toContain('1 held request released');
    expect((await freeze).status).toBe(200);
    expect((await api('/v1/card/detail', { cardId })).cardStatus).toBe('FROZEN');
  });
});
