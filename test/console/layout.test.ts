import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli-process.js';
import type { AccountHandle, TestSandbox } from '../helpers/sandbox.js';
import type { Receiver } from '../helpers/webhook-receiver.js';
import { useConsole, expectNoTextOverlap, screenshot } from './browser.js';

// The console's layout at a phone's, a tablet's and a laptop's width, read from the boxes the browser laid out: no
// text overlaps other text on any page, with the data that once made it do (a long alias beside its status badge on
// the Home tiles, a long merchant name, a card below zero). And an automated browser signs in as docs/console.md shows.

let page: Page;
let sb: TestSandbox;
let base: string;
let acct: AccountHandle;
let receiver: Receiver;

useConsole({ balance: 1000 }, (w) => {
  ({ sb, base, acct, receiver } = w);
  if (w.page) page = w.page;
});

const api = async (path: string, body: unknown = {}, headers: Record<string, string> = {}) => {
  const res = await sb.post(acct.apiKey, path, body, headers);
  expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
};
const create = async (amount: number, alias?: string) =>
  (
    await api(
      '/v1/card/create',
      { amount, currency: 'USDT', ...(alias && { alias }) },
      { 'Idempotency-Key': crypto.randomUUID() },
    )
  ).cardId as string;

/** The first code block of `lang` under a heading of docs/console.md. */
function consoleDocBlock(heading: string, lang: string): string {
  const text = readFileSync(join(ROOT, 'docs/console.md'), 'utf8');
  const from = text.indexOf(`\n${heading}\n`);
  expect(from, `docs/console.md has "${heading}"`).toBeGreaterThan(0);
  return new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'm').exec(text.slice(from))![1]!;
}

describe('the console at 375, 768 and 1280 px', { timeout: 180_000 }, () => {
  let cards: Record<'long' | 'plain' | 'below', string>;

  const WIDTHS = [
    [375, 812],
    [768, 1024],
    [1280, 800],
  ] as const;

  it('signs an automated browser in with one form post, as docs/console.md shows', async () => {
    for (const [width, height] of WIDTHS) {
      await page.setViewportSize({ width, height });
      await page.goto(`${base}/console/signin`);
      await expectNoTextOverlap(page, `sign-in at ${width}`);
    }
    const signIn = consoleDocBlock('## Signing in from automation', 'js');
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor;
    await new AsyncFunction('page', 'base', 'KEY', signIn)(page, base, acct.apiKey);
    expect(new URL(page.url()).pathname).toBe('/console');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Home');
  });

  it('lays no text over other text on any page', async () => {
    cards = {
      long: await create(300, 'Team travel and client entertainment, EMEA'),
      plain: await create(50),
      below: await create(20, 'Overdrawn subscriptions card'),
    };
    const frozen = await create(20, 'Marketing tools (frozen)');
    await api('/v1/card/freeze', { cardId: frozen }, { 'Idempotency-Key': crypto.randomUUID() });
    const gone = await create(10, 'Cancelled card');
    await api('/v1/card/cancel', { cardId: gone }, { 'Idempotency-Key': crypto.randomUUID() });
    await api('/sandbox/v1/transaction/force-post', {
      cardId: cards.below,
      amount: 50,
      merchantName: 'International Conference Centre Catering Services',
    });
    const auth = await api('/sandbox/v1/card/authorize', {
      cardId: cards.long,
      amount: 123.45,
      merchantName: 'Grand Harbour View Hotel & Conference Resort',
      merchantCountry: 'GB',
      mccCategory: 'Hotels and lodging',
    });
    await api('/sandbox/v1/transaction/clear', { transactionId: auth.transactionId, final: false, amount: 20 });
    await sb.request.put('/v1/webhook').set('X-API-KEY', acct.apiKey).send({ url: receiver.url });
    await api('/sandbox/v1/clock', { advanceSeconds: 6 });

    const pages: [string, string][] = [
      ['home', '/console'],
      ['cards', '/console/cards'],
      ['card (long alias)', `/console/cards/${cards.long}`],
      ['card (below zero)', `/console/cards/${cards.below}`],
      ['transactions', '/console/transactions'],
      ['simulate', '/console/simulate'],
      ['webhooks', '/console/webhooks'],
      ['requests', '/console/requests'],
      ['events', '/console/events'],
      ['readiness', '/console/readiness'],
    ];
    for (const [width, height] of WIDTHS) {
      await page.setViewportSize({ width, height });
      for (const [name, path] of pages) {
        await page.goto(base + path);
        await expectNoTextOverlap(page, `${name} at ${width}`);
        if (name === 'home') await screenshot(page, `home-tiles-${width}.png`);
      }
    }
  });
});
