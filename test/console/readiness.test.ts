import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { useConsole, expectAccessible, screenshot } from './browser.js';

// The console's Readiness page in a real browser: start a run with the keyboard, see its checks as readiness/get
// reports them, follow the evidence to the request log and to the run's own test deliveries.

let page: Page;
let sb: TestSandbox;
let base: string;
let acct: AccountHandle;
let receiver: Receiver;

const nav = (name: string) =>
  page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });
const flash = () => page.locator('.flash');
const latestRun = () => page.locator('details[data-run-id]').first();
const checkRow = (id: string) => latestRun().locator(`tr[data-check="${id}"]`);

useConsole({ balance: 1000, depositFeeRate: '0' }, (w) => {
  ({ sb, base, acct, receiver } = w);
  if (w.page) page = w.page;
});

describe('console Readiness page', { timeout: 120_000 }, () => {
  it('is in the navigation as Readiness, with a start form and no run yet', async () => {
    // A receiver that accepts everything: three receiver checks fail, with their deliveries as evidence.
    const put = await sb.request
      .put('/v1/webhook')
      .set('X-API-KEY', acct.apiKey)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ url: receiver.url }));
    expect(put.status).toBe(200);
    await page.goto(base + '/console/signin');
    await page.getByLabel('API key').fill(acct.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(base + '/console');
    await nav('Readiness').click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Readiness');
    expect(await nav('Readiness').getAttribute('aria-current')).toBe('page');
    await expect
      .poll(() => page.getByRole('region', { name: 'Readiness runs' }).textContent())
      .toContain('No readiness run yet.');
    await expectAccessible(page, 'readiness, empty');
  });

  it('starts a run from the keyboard; the API refusal of a second one shows its code and keeps the field', async () => {
    await page.getByLabel('Window (seconds)').fill('600');
    await page.getByLabel('Window (seconds)').press('Enter');
    await expect.poll(() => flash().textContent()).toMatch(/Readiness run rdy_\w{24} started/);
    const runId = /rdy_\w{24}/.exec((await flash().textContent()) ?? '')![0];
    const listed = (await sb.post(acct.apiKey, '/sandbox/v1/readiness/list', {})).body;
    expect(listed.runs.map((r: { runId: string }) => r.runId)).toEqual([runId]);
    await expect.poll(() => latestRun().getAttribute('data-run-id')).toBe(runId);

    await page.getByLabel('Window (seconds)').fill('60');
    await page.getByRole('button', { name: 'Start readiness run' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain(`readiness run ${runId} is still running`);
    expect(await page.getByLabel('Window (seconds)').inputValue()).toBe('60');
  });

  it('shows the checks as readiness/stop reports them, after the integration made its calls', async () => {
    // A card/create without an Idempotency-Key, then a read (the run's 429) retried at once.
    expect((await sb.post(acct.apiKey, '/v1/card/create', { amount: 10, currency: 'USDT' })).status).toBe(200);
    expect((await sb.post(acct.apiKey, '/v1/card/list', {})).status).toBe(429);
    expect((await sb.post(acct.apiKey, '/v1/card/list', {})).status).toBe(200);
    const runId = (await latestRun().getAttribute('data-run-id'))!;
    await latestRun()
      .getByRole('button', { name: `Stop run ${runId}` })
      .click();
    await expect.poll(() => flash().textContent()).toContain(`Readiness run ${runId} stopped`);
    const report = (await sb.post(acct.apiKey, '/sandbox/v1/readiness/get', { runId })).body;
    for (const c of report.checks as { id: string; result: string; advice: string | null }[]) {
      const row = checkRow(c.id);
      expect(await row.locator('.badge').textContent(), c.id).toBe(c.result.replace('_', ' '));
      expect(await row.textContent(), c.id).toContain(c.advice ?? '');
    }
    expect(await latestRun().locator('summary').textContent()).toContain('2 passed, 5 failed, 4 not observed');
    await expectAccessible(page, 'readiness, a run done');
    await page.evaluate("document.getElementById('h-runs').scrollIntoView(), window.scrollBy(0, -72)");
    await screenshot(page, 'readiness-1280.png');
  });

  it("follows a request id of the evidence to the request log's record", async () => {
    const link = checkRow('idempotency-key-on-writes').getByRole('link');
    const requestId = (await link.textContent())!;
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/console/requests/${requestId}`);
    await expect
      .poll(() => page.getByRole('heading', { level: 2 }).first().textContent())
      .toContain('POST /v1/card/create');
    await page.goBack();
  });

  it('follows a delivery id of the evidence to that delivery and its attempts on the same page', async () => {
    const link = checkRow('receiver-rejects-stale-timestamp').getByRole('link');
    const deliveryId = (await link.textContent())!;
    await link.click();
    expect(new URL(page.url()).hash).toBe(`#${deliveryId}`);
    const row = page.locator(`tr[id="${deliveryId}"]`);
    await expect.poll(() => row.isVisible()).toBe(true);
    expect(await row.textContent()).toContain('receiver-rejects-stale-timestamp');
    expect(await row.textContent()).toMatch(/200 · \d+ ms/);
  });

  it('at 375 px wide passes axe and never scrolls sideways (its tables scroll in their region)', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(base + '/console/readiness');
    await expectAccessible(page, 'readiness at 375');
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});
