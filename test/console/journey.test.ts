import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import { behaviours, type Receiver } from '../helpers/webhook-receiver.js';
import { useConsole, expectAccessible, screenshot, shown, WAIT_MS } from './browser.js';

// The console in a real browser, step by step as a partner's QA would use it; every step checks what the page
// shows against the API's own answer for the same account.

let context: BrowserContext;
let page: Page;
let sb: TestSandbox;
let base: string;
let acct: AccountHandle;
let receiver: Receiver;
let cardId: string;
let transactionId: string;

const api = async (path: string, body: unknown = {}) => {
  const res = await sb.post(acct.apiKey, path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const nav = (name: string) =>
  page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });
const flash = () => page.locator('.flash');

useConsole({ balance: 1000 }, (w) => {
  ({ sb, base, acct, receiver } = w);
  if (w.page) ({ page, context } = { page: w.page, context: w.context! });
});

describe('console journey', { timeout: 120_000 }, () => {
  it('sends a visitor without a session to sign-in, and a first load weighs under 150 KiB', async () => {
    let bytes = 0;
    const sizes: Promise<void>[] = [];
    page.on('requestfinished', (req) =>
      sizes.push(req.sizes().then((s) => void (bytes += s.responseBodySize + s.responseHeadersSize))),
    );
    await page.goto(base + '/');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/console/signin');
    await page.waitForLoadState('load');
    await Promise.all(sizes);
    page.removeAllListeners('requestfinished');
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(150 * 1024);
    await expectAccessible(page, 'sign-in');
    await screenshot(page, 'signin-1280.png');
  });

  it('signs in with an API key; Home shows the USDT balance the API reports', async () => {
    await page.getByLabel('API key').fill(acct.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(base + '/console');
    expect(page.url()).not.toContain(acct.apiKey);
    const assets = await api('/v1/wallet/assetList');
    await expect
      .poll(() => page.getByTestId('usdt-available').textContent())
      .toBe(shown(assets.assetList[0].availableAmount));
    expect(await page.evaluate('JSON.stringify(localStorage) + document.cookie')).not.toContain(acct.apiKey);
  });

  it('creates a card with Amount and Alias; its page shows the balance card/detail reports', async () => {
    await nav('Cards').click();
    await page.getByRole('button', { name: 'Create card' }).click();
    await page.getByLabel('Amount').fill('100');
    await page.getByLabel('Alias').fill('Team travel');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(/\/console\/cards\/\d{22}$/);
    cardId = page.url().split('/').pop()!;
    const detail = await api('/v1/card/detail', { cardId });
    expect(detail.alias).toBe('Team travel');
    await expect.poll(() => page.getByTestId('card-available').textContent()).toContain(shown(detail.availableBalance));
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Team travel');
  });

  it('keeps what the user typed when the API refuses the card (and shows its code and message)', async () => {
    await nav('Cards').click();
    await page.getByRole('button', { name: 'Create card' }).click();
    await page.getByLabel('Amount').fill('5000');
    await page.getByLabel('Alias').fill('Too big');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('3001');
    expect(await page.getByLabel('Amount').inputValue()).toBe('5000');
    expect(await page.getByLabel('Alias').inputValue()).toBe('Too big');
    const list = await api('/v1/card/list');
    expect(list.cardList).toHaveLength(1);
  });

  it('tops up after showing the fee and the credit, and the card gets that credit once settled', async () => {
    await page.goto(`${base}/console/cards/${cardId}`);
    await page.getByLabel('Amount').fill('50');
    await page.getByRole('button', { name: 'Top up' }).click();
    const preview = page.getByTestId('topup-preview');
    await expect.poll(() => preview.textContent()).toContain('Fee1.00');
    expect(await preview.textContent()).toContain('49.00');
    const before = (await api('/v1/card/asset', { cardId })).availableAmount;
    await page.getByRole('button', { name: 'Confirm top up' }).click();
    await expect.poll(() => flash().textContent()).toContain('Top-up of 50.00 USDT accepted');
    await sb.advance(acct.apiKey, 3);
    const after = (await api('/v1/card/asset', { cardId })).availableAmount;
    expect(Number(after) - Number(before)).toBe(49);
    await page.reload();
    await expect.poll(() => page.getByTestId('card-available').textContent()).toContain(shown(after));
  });

  it('freezes and unfreezes the card, as card/detail then reports', async () => {
    await page.getByRole('button', { name: 'Freeze', exact: true }).click();
    await expect.poll(() => flash().textContent()).toContain('Card frozen');
    expect((await api('/v1/card/detail', { cardId })).cardStatus).toBe('FROZEN');
    await page.getByRole('button', { name: 'Unfreeze' }).click();
    await expect.poll(() => flash().textContent()).toContain('Card unfrozen');
    expect((await api('/v1/card/detail', { cardId })).cardStatus).toBe('ACTIVE');
  });

  it('shows PAN, CVV and expiry only on demand, as card/sensitiveInfo answers, and hides them again', async () => {
    expect(await page.getByTestId('card-details').count()).toBe(0);
    await page.getByRole('button', { name: 'Show card details' }).click();
    const secret = await api('/v1/card/sensitiveInfo', { cardId });
    const details = page.getByTestId('card-details');
    await expect.poll(() => details.textContent()).toContain(secret.cvv);
    expect((await details.textContent())!.replace(/\s/g, '')).toContain(secret.cardNo);
    await screenshot(page, 'card-details-1280.png');
    await page.getByRole('button', { name: 'Hide card details' }).click();
    await expect.poll(() => page.getByTestId('card-details').count()).toBe(0);
    expect(await page.content()).not.toContain(secret.cardNo);
  });

  it('simulates a purchase and clears it; bill/list then lists it COMPLETED', async () => {
    await nav('Simulate').click();
    const form = page.getByRole('form', { name: 'Purchase' });
    await form.getByLabel('Card').selectOption(cardId);
    await form.getByLabel('Amount').fill('12.50');
    await form.getByLabel('Merchant').fill('Corner Coffee');
    await form.getByRole('button', { name: 'Purchase' }).click();
    await expect.poll(() => flash().textContent()).toContain('Authorisation PENDING');
    transactionId = /txn_\w+/.exec((await flash().textContent())!)![0];
    const row = page.locator(`tr[data-transaction-id="${transactionId}"]`);
    await row.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => flash().textContent()).toContain('Transaction cleared');
    const bills = await api('/v1/bill/list', { cardId });
    expect(bills.transactions[0]).toMatchObject({ merchant: 'Corner Coffee', amount: '-12.50', status: 'COMPLETED' });
    await expect.poll(() => row.textContent()).toContain('CLEARED');
  });

  it('refunds the cleared purchase; bill/list shows the refund', async () => {
    await page.locator(`tr[data-transaction-id="${transactionId}"]`).getByRole('button', { name: 'Refund' }).click();
    await expect.poll(() => flash().textContent()).toContain('Refund created');
    const bills = await api('/v1/bill/list', { cardId });
    expect(bills.transactions[0]).toMatchObject({ amount: '12.50', status: 'REVERTED' });
  });

  it('lists the card transactions exactly as bill/list pages them, filtered by card', async () => {
    await nav('Transactions').click();
    await page.getByLabel('Card').selectOption(cardId);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/card=/);
    const bills = await api('/v1/bill/list', { cardId });
    const rows = page.getByRole('region', { name: 'Transactions' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(bills.transactions.length);
    for (const [i, t] of bills.transactions.entries()) {
      const text = (await rows.nth(i).textContent())!;
      expect(text).toContain(t.merchant);
      expect(text).toContain(t.status);
      expect(text).toContain(shown(t.amount));
    }
  });

  it('raises a 3DS challenge and shows the OTP the simulation answered (it verifies)', async () => {
    await nav('Simulate').click();
    const form = page.getByRole('form', { name: '3DS challenge' });
    await form.getByLabel('Card').selectOption(cardId);
    await form.getByLabel('Type').selectOption('payment');
    await form.getByRole('button', { name: '3DS challenge' }).click();
    await expect.poll(() => flash().textContent()).toContain('3DS challenge raised');
    const text = (await flash().textContent())!;
    const otp = /One-time code(\d{6})/.exec(text)![1];
    const challengeId = /raised: (\S+?)One-time/.exec(text)![1];
    expect((await api('/sandbox/v1/3ds/verify', { challengeId, otp })).result).toBe('APPROVED');
  });

  it('advances the clock; the account time shown is the API clock', async () => {
    const before = (await api('/sandbox/v1/clock')).now as string;
    const form = page.getByRole('form', { name: 'Advance clock' });
    await form.getByLabel('Seconds').fill('3600');
    await form.getByRole('button', { name: 'Advance clock' }).click();
    await expect.poll(() => flash().textContent()).toContain('Clock advanced');
    const now = (await api('/sandbox/v1/clock')).now as string;
    expect(Date.parse(now) - Date.parse(before)).toBe(3600_000);
    expect(await page.locator('#account-time time').getAttribute('datetime')).toBe(now);
  });

  it('shows a failing delivery retrying live, without a reload, and redelivers it', async () => {
    receiver.fallback = behaviours.status(500);
    await nav('Webhooks').click();
    await page.getByLabel('URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Save endpoint' }).click();
    await expect.poll(() => flash().textContent()).toContain('whsec_');
    await api('/v1/card/freeze', { cardId });
    await sb.advance(acct.apiKey, 0);
    const events = await api('/sandbox/v1/events', { type: 'card.frozen', limit: 1 });
    const eventId = events.events[0].id as string;
    // The documented region, found by its name alone (strict: exactly one region has it).
    const item = page
      .getByRole('region', { name: 'Deliveries', exact: true })
      .locator(`details[data-event-id="${eventId}"]`);
    // No reload from here: the live region picks up the event and each attempt.
    await expect.poll(() => item.textContent(), { timeout: WAIT_MS }).toContain('1 attempt');
    await sb.advance(acct.apiKey, 60);
    await expect.poll(() => item.textContent(), { timeout: WAIT_MS }).toContain('2 attempts');
    const log = await api('/sandbox/v1/webhook/deliveries', { eventId });
    expect(log.deliveries.map((d: { statusCode: number }) => d.statusCode)).toEqual([500, 500]);
    await item.locator('summary').click();
    await expect.poll(() => item.locator('tbody tr').count()).toBe(2);
    expect(await item.textContent()).toContain('HTTP 500');
    await screenshot(page, 'webhooks-deliveries-1280.png');
    receiver.fallback = behaviours.ok;
    await item.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(() => flash().textContent()).toContain(`Redelivered ${eventId}: 200`);
    const after = await api('/sandbox/v1/webhook/deliveries', { eventId });
    expect(after.deliveries[0]).toMatchObject({ redelivery: true, statusCode: 200 });
  });

  it('lists events filtered by type, each with the payload the API holds', async () => {
    await nav('Events').click();
    await page.getByLabel('Type').selectOption('card.created');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/type=card.created/);
    const { events } = await api('/sandbox/v1/events', { type: 'card.created' });
    const items = page.locator('details[data-event-id]');
    await expect.poll(() => items.count()).toBe(events.length);
    await items.first().locator('summary').click();
    expect(await items.first().locator('pre').textContent()).toContain(`"cardId": "${cardId}"`);
  });

  it("opens a request's full record from the request log, redacted as the API holds it", async () => {
    await nav('Requests').click();
    // The log is written in batches: wait until the console's card/create shows in the API's answer.
    let created: { requestId: string } | undefined;
    await expect
      .poll(async () => {
        const { requests } = await api('/sandbox/v1/requests', { path: '/v1/card/create', limit: 5 });
        created = requests.find((r: { status: number }) => r.status === 200);
        return created !== undefined;
      })
      .toBe(true);
    created = created!;
    const row = page.locator(`tr[data-request-id="${created.requestId}"]`);
    await page.getByLabel('Path').fill('/v1/card/create');
    // The card was created with the console's form: a call of the console's own, listed when asked for.
    await page.getByLabel("Show the console's own calls").check();
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/path=/);
    await row.getByRole('link').click();
    await page.waitForURL(new RegExp(`/console/requests/${created.requestId}$`));
    const record = await api('/sandbox/v1/requests/get', { requestId: created.requestId });
    const text = (await page.locator('main').textContent())!;
    expect(text).toContain(record.requestId);
    expect(text).toContain(`${record.method} ${record.path}`);
    expect(text).toContain('Team travel');
    expect(text).not.toContain(acct.apiKey);
  });

  it("exports the account's snapshot from Home as a file: the API's snapshot/export answer, which import takes", async () => {
    await nav('Home').click();
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: WAIT_MS }),
      page.getByRole('button', { name: 'Export snapshot' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(
      new RegExp(`^snapshot-${acct.accountId}-\\d{4}-\\d{2}-\\d{2}\\.json$`),
    );
    const chunks: Buffer[] = [];
    for await (const chunk of (await download.createReadStream())!) chunks.push(chunk as Buffer);
    await download.delete();
    const file = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const fromApi = await api('/sandbox/v1/snapshot/export');
    // The same state; only the instant of the export (and so its signature) differs.
    const { exportedAt: _a, signature: _s, ...saved } = file;
    const { exportedAt: _b, signature: _t, ...expected } = fromApi;
    expect(saved).toEqual(expected);
    expect(saved.cards.map((c: { id: string }) => c.id)).toContain(cardId);
    const imported = await sb.post(acct.apiKey, '/sandbox/v1/snapshot/import', file);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  });

  it('every page passes axe (no serious or critical violation) at 1280x800 and 375x812', async () => {
    const pages: [string, string][] = [
      ['home', '/console'],
      ['cards', '/console/cards'],
      ['card', `/console/cards/${cardId}`],
      ['transactions', '/console/transactions'],
      ['simulate', '/console/simulate'],
      ['webhooks', '/console/webhooks'],
      ['requests', '/console/requests'],
      ['events', '/console/events'],
    ];
    for (const [width, height] of [
      [1280, 800],
      [375, 812],
    ] as const) {
      await page.setViewportSize({ width, height });
      for (const [name, path] of pages) {
        await page.goto(base + path);
        await expectAccessible(page, `${name} at ${width}`);
        await screenshot(page, `${name}-${width}.png`);
        // Nothing wider than the screen: the page itself never scrolls sideways (tables scroll in their region).
        expect(await page.evaluate('document.documentElement.scrollWidth'), `${name} at ${width}`).toBeLessThanOrEqual(
          width,
        );
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('sends each keyed write under the Idempotency-Key its form was shown with: a form sent twice is one card', async () => {
    await page.goto(`${base}/console/cards?new=1`);
    const form = page.getByRole('form', { name: 'New card' });
    const fields = {
      _csrf: await form.locator('input[name=_csrf]').inputValue(),
      idempotencyKey: await form.locator('input[name=idempotencyKey]').inputValue(),
      amount: '10',
      alias: 'Sent twice',
    };
    const before = (await api('/v1/card/list')).cardList.length;
    // A double click, or the browser sending the form again: the same form, twice.
    const sent = [];
    for (let i = 0; i < 2; i++)
      sent.push(await page.request.post(`${base}/console/cards`, { form: fields, maxRedirects: 0 }));
    expect(sent.map((r) => r.status())).toEqual([303, 303]);
    expect(sent[1]!.headers().location).toBe(sent[0]!.headers().location);
    expect((await api('/v1/card/list')).cardList).toHaveLength(before + 1);
    // Cancelled from its page, so the rest of the journey keeps its one live card.
    await page.goto(base + sent[0]!.headers().location);
    await page.getByRole('button', { name: 'Cancel card' }).click();
    await expect.poll(() => flash().textContent()).toContain('Card cancellation started');
    // Every keyed write the console made (create, top-up, freeze, unfreeze, cancel) carried a key.
    const writes = [];
    for (const op of ['create', 'deposit', 'freeze', 'unfreeze', 'cancel']) {
      const found = await api('/sandbox/v1/requests', { path: `/v1/card/${op}`, source: 'console', limit: 500 });
      expect(found.requests.length, op).toBeGreaterThan(0);
      writes.push(...found.requests);
    }
    expect(writes.filter((r: { idempotencyKey: string | null }) => !r.idempotencyKey)).toEqual([]);
    expect(writes.filter((r: { replayed: boolean }) => r.replayed)).toHaveLength(1);
  });

  it('signs out: the session ends on the server and the pages send to sign-in again', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'console_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(base + '/console/signin');
    const res = await fetch(base + '/console', {
      headers: { Cookie: `console_session=${cookie.value}` },
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console/signin');
  });
});
