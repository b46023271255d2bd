import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { useConsole, expectAccessible, WAIT_MS } from './browser.js';

// The console's Requests page shows the partner's traffic (docs/console.md): the console's own calls hidden unless
// asked for, times that say they are wall-clock time, a request an integration makes appearing without a reload
// (also while the reader has focus in the table, which held every update before), and what a fault did to a request.
// Decided by state: each wait is for the page to show something, within a generous limit.

let page: Page;
let sb: TestSandbox;
let base: string;
let acct: AccountHandle;

useConsole({ balance: 1000, depositFeeRate: '0' }, (w) => {
  ({ sb, base, acct } = w);
  if (w.page) page = w.page;
});

/** A request an integration makes, over HTTP from outside the console; answers its request id. */
async function integrationCall(path: string, body: unknown = {}): Promise<string> {
  const res = await fetch(base + path, {
    method: 'POST',
    headers: { 'X-API-KEY': acct.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.headers.get('x-request-id')!;
}

const row = (requestId: string) => page.locator(`tr[data-request-id="${requestId}"]`);

describe("the Requests page shows the partner's traffic", { timeout: 120_000 }, () => {
  it('hides the console’s own calls unless asked for, and says its times are wall-clock time', async () => {
    const before = await integrationCall('/v1/wallet/assetList');
    await page.goto(base + '/console/signin');
    await page.getByLabel('API key').fill(acct.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(base + '/console');
    await page.goto(base + '/console/requests');
    await expect.poll(() => row(before).count()).toBe(1);
    // The console drew Home and this page through the API: those calls are in the log, and not listed here.
    const consoleCalls = await sb.post(acct.apiKey, '/sandbox/v1/requests', { source: 'console' });
    expect(consoleCalls.body.requests.length).toBeGreaterThan(0);
    for (const r of consoleCalls.body.requests) expect(await row(r.requestId).count(), r.path).toBe(0);
    await expect.poll(() => page.getByRole('columnheader', { name: 'Time (wall clock, UTC)' }).count()).toBe(1);
    await expectAccessible(page, 'requests');
    // Asked for, they are listed, each marked as the console's.
    await page.getByLabel("Show the console's own calls").check();
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/console=on/);
    const shown = consoleCalls.body.requests[0].requestId;
    await row(shown).waitFor();
    expect(await row(shown).getAttribute('data-source')).toBe('console');
    expect(await row(shown).textContent()).toContain('console');
  });

  it('shows a new request of the integration without a reload, while the reader has focus in the table', async () => {
    await page.goto(base + '/console/requests');
    await page.evaluate('window.__sameDocument = true');
    // The reader clicks into the list (the table's scrollable wrapper takes focus): updates must go on all the same.
    await page.getByRole('region', { name: 'Request log' }).click({ position: { x: 4, y: 4 } });
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe('Request log');
    const made = await integrationCall('/v1/card/binList');
    await row(made).waitFor({ timeout: WAIT_MS });
    expect(await page.evaluate('window.__sameDocument === true')).toBe(true);
    // The update kept the reader's place: focus is still on the list.
    expect(await page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe('Request log');
    expect(await row(made).textContent()).toContain('/v1/card/binList');
  });

  it('marks a request whose answer a fault dropped, and its record says what the fault did', async () => {
    const card = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    const rules = [{ path: '/v1/card/deposit', dropResponse: true }];
    expect((await sb.post(acct.apiKey, '/sandbox/v1/faults', { rules })).status).toBe(200);
    await page.goto(base + '/console/requests');
    await expect(integrationCall('/v1/card/deposit', { cardId: card.body.cardId, amount: 5 })).rejects.toThrow();
    const [dropped] = (await sb.post(acct.apiKey, '/sandbox/v1/requests', { path: '/v1/card/deposit', limit: 1 })).body
      .requests;
    await row(dropped.requestId).waitFor({ timeout: WAIT_MS });
    expect(await row(dropped.requestId).textContent()).toContain('answer dropped');
    await row(dropped.requestId).getByRole('link').click();
    await page.waitForURL(new RegExp(`/console/requests/${dropped.requestId}$`));
    const props = page.locator('dl.props');
    await expect.poll(() => props.textContent()).toContain('Time (wall clock, UTC)');
    expect(await props.textContent()).toContain(dropped.fault.text);
    expect(dropped.fault.text).toMatch(/the client got no answer/);
  });

  it("shows the answer's Sandbox-Hint in the request's record: a 4007's pending top-up and when it settles", async () => {
    const card = await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' });
    expect((await sb.post(acct.apiKey, '/v1/card/deposit', { cardId: card.body.cardId, amount: 5 })).status).toBe(200);
    const refused = await integrationCall('/v1/card/freeze', { cardId: card.body.cardId });
    const record = (await sb.post(acct.apiKey, '/sandbox/v1/requests/get', { requestId: refused })).body;
    expect(record.hint).toMatch(/^A top-up of 5 USDT to this card is settling: it settles at /);
    await page.goto(`${base}/console/requests/${refused}`);
    const props = page.locator('dl.props');
    await expect.poll(() => props.textContent()).toContain(record.hint);
  });
});
