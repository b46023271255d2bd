import { mkdirSync, mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { createTestSandbox, type AccountHandle, type TestSandbox } from '../helpers/sandbox.js';
import { ROOT } from '../helpers/cli-process.js';
import { skipBecause } from '../helpers/skip.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { listen } from '../helpers/loopback.js';

// Shared by the console's browser tests: a Chromium driven by playwright-core, a test sandbox listening on a loopback
// port, axe-core, and the screenshot writer.

const OUR_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
// @sparticuz/chromium recommends these for serverless hosts; the console must meet the same-origin policy and its CSP
// as a partner's browser does, so they stay off.
const WEAKENING = new Set([
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
]);
const SCREENSHOT_DIR = join(dirname(new URL(import.meta.url).pathname), '../../docs/console');
/** Generous: the suite runs on a loaded machine; waits are on conditions, never on durations. */
export const WAIT_MS = 30_000;

type Found = { executablePath: string; args: string[]; source: string } | { unavailable: string };

/**
 * The browser, first found of: CHROMIUM_PATH, the system's /usr/bin/chromium, the Chromium that `npm install` brings
 * (@sparticuz/chromium, which ships a Linux x64 build only). It unpacks into the temp folder; here it is pointed at a
 * cache of its own (node_modules/.cache/chromium, kept between runs like ESLint's), so a test run's temp folder ends
 * as it began and the browser is unpacked once, not once per run.
 */
async function findChromium(): Promise<Found> {
  const given = process.env.CHROMIUM_PATH;
  if (given) {
    return existsSync(given)
      ? { executablePath: given, args: OUR_ARGS, source: 'CHROMIUM_PATH' }
      : { unavailable: `CHROMIUM_PATH=${given} does not exist` };
  }
  if (existsSync('/usr/bin/chromium')) return { executablePath: '/usr/bin/chromium', args: OUR_ARGS, source: 'system' };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    return {
      unavailable: `no /usr/bin/chromium, and @sparticuz/chromium ships Linux x64 only (this is ${process.platform} ${process.arch}); set CHROMIUM_PATH`,
    };
  }
  try {
    const tmp = process.env.TMPDIR;
    const cache = join(ROOT, 'node_modules/.cache/chromium');
    mkdirSync(cache, { recursive: true });
    process.env.TMPDIR = cache;
    try {
      const { default: sparticuz } = await import('@sparticuz/chromium');
      const args = [...new Set([...sparticuz.args.filter((a) => !WEAKENING.has(a)), ...OUR_ARGS])];
      return { executablePath: await sparticuz.executablePath(), args, source: '@sparticuz/chromium' };
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
  } catch (err) {
    return { unavailable: `@sparticuz/chromium could not unpack its browser: ${(err as Error).message}` };
  }
}

/** A launched browser, or the reason none can be had (the caller skips with it, which fails under CI=true). */
async function launch(tempDir: string): Promise<Browser | string> {
  const found = await findChromium();
  let why: string;
  if ('unavailable' in found) why = found.unavailable;
  else {
    try {
      // Chromium keeps files of its own in TMPDIR (.org.chromium.Chromium.*) and does not always remove them on
      // close; a folder per browser, removed once it has closed, keeps the run's temp folder as it began.
      const env = { ...process.env, TMPDIR: tempDir } as Record<string, string>;
      return await chromium.launch({ executablePath: found.executablePath, args: found.args, timeout: WAIT_MS, env });
    } catch (err) {
      why = `${found.source} Chromium at ${found.executablePath} did not start: ${(err as Error).message.split('\n')[0]}`;
    }
  }
  return `no browser: ${why}`;
}

async function listeningSandbox(): Promise<{ sb: TestSandbox; base: string }> {
  const sb = createTestSandbox();
  return { sb, base: await listen(sb.server) };
}

/** What a browser test file works with: a listening sandbox, one account, a webhook receiver and one page. */
export interface ConsoleWorld {
  sb: TestSandbox;
  base: string;
  acct: AccountHandle;
  receiver: Receiver;
  browser?: Browser;
  context?: BrowserContext;
  page?: Page;
  /** Why the file's tests skip: no browser can be had on this machine (never under CI=true). */
  noBrowser?: string;
  /** The browser's own temp folder, removed after it closes. */
  browserTemp: string;
}

/** Opens the world of a browser test file (call it in `beforeAll`; `closeConsole` in `afterAll`). */
async function openConsole(account: Record<string, unknown>): Promise<ConsoleWorld> {
  const { sb, base } = await listeningSandbox();
  const browserTemp = mkdtempSync(join(tmpdir(), 'browser-'));
  const world: ConsoleWorld = {
    sb,
    base,
    acct: await sb.account(account),
    receiver: await startReceiver(),
    browserTemp,
  };
  const launched = await launch(browserTemp);
  if (typeof launched === 'string') return { ...world, noBrowser: launched };
  const context = await launched.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  context.setDefaultTimeout(WAIT_MS);
  return { ...world, browser: launched, context, page: await context.newPage() };
}

/**
 * A browser test file's world, for the whole file: opened before its tests (handed to `opened`, which keeps what the
 * file uses), each test skipped with the reason when no browser can be had (never under CI=true), closed after.
 */
export function useConsole(account: Record<string, unknown>, opened: (world: ConsoleWorld) => void): void {
  let world: ConsoleWorld | undefined;
  beforeAll(async () => {
    world = await openConsole(account);
    opened(world);
  }, 60_000);
  beforeEach((ctx) => {
    if (world?.noBrowser) skipBecause(ctx, world.noBrowser);
  });
  afterAll(() => closeConsole(world));
}

async function closeConsole(world: Partial<ConsoleWorld> | undefined): Promise<void> {
  await world?.browser?.close();
  if (world?.browserTemp) rmSync(world.browserTemp, { recursive: true, force: true });
  await world?.receiver?.close();
  await world?.sb?.close();
}

const axeSource = readFileSync(join(dirname(createRequire(import.meta.url).resolve('axe-core')), 'axe.min.js'), 'utf8');

/** axe-core in the page (evaluated through the driver, so the console's CSP needs no exception): no serious or critical violation. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await page.evaluate(axeSource);
  // A string, evaluated in the page: the test compiles without the DOM library.
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) =>
    r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })))`)) as { id: string; impact: string }[];
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad, `${name}: ${JSON.stringify(bad, null, 2)}`).toEqual([]);
}

/**
 * No two pieces of text on the page overlap, as the browser laid them out: every rendered text node's line boxes (a
 * Range's client rects), each cut to what its clipping ancestors show (a table scrolling in its region, a visually
 * hidden label), compared with every other text node's. Overlaps of 2 px or less (glyph boxes touching) are not
 * counted. Every overlap of the page is reported (a soft assertion), so one run lists them all.
 */
export async function expectNoTextOverlap(page: Page, name: string): Promise<void> {
  // A string, evaluated in the page: the test compiles without the DOM library.
  const overlaps = (await page.evaluate(`(() => {
    const clips = (el) => {
      let clip = { left: -Infinity, top: -Infinity, right: Infinity, bottom: Infinity };
      for (let a = el; a && a !== document.documentElement; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX === 'visible' && s.overflowY === 'visible' && s.clipPath === 'none' && s.clip === 'auto') continue;
        const r = a.getBoundingClientRect();
        clip = { left: Math.max(clip.left, r.left), top: Math.max(clip.top, r.top),
          right: Math.min(clip.right, r.right), bottom: Math.min(clip.bottom, r.bottom) };
      }
      return clip;
    };
    const boxes = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    let node = 0;
    for (let n = walker.nextNode(); n; n = walker.nextNode(), node++) {
      const el = n.parentElement;
      if (!el || !n.textContent.trim() || el.closest('script, style, template')) continue;
      // Not rendered: hidden, transparent, or in a skipped subtree (a closed <details>, content-visibility).
      if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true })) continue;
      const clip = clips(el);
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const r of range.getClientRects()) {
        const b = { left: Math.max(r.left, clip.left), top: Math.max(r.top, clip.top),
          right: Math.min(r.right, clip.right), bottom: Math.min(r.bottom, clip.bottom) };
        if (b.right - b.left > 2 && b.bottom - b.top > 2) boxes.push({ node, text: n.textContent.trim().slice(0, 40), ...b });
      }
    }
    const found = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.node === b.node) continue;
        const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
        const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (w > 2 && h > 2) found.push(JSON.stringify(a.text) + ' overlaps ' + JSON.stringify(b.text) +
          ' (' + Math.round(w) + ' x ' + Math.round(h) + ' px)');
      }
    }
    return found;
  })()`)) as string[];
  expect.soft(overlaps, `${name}: text over text`).toEqual([]);
}

/**
 * Screenshots for docs/console.md. Written when missing or when CONSOLE_SCREENSHOTS=1, so a plain `npm test` leaves
 * the committed images (and the working tree) alone.
 */
export async function screenshot(page: Page, file: string): Promise<void> {
  const path = join(SCREENSHOT_DIR, file);
  if (existsSync(path) && process.env.CONSOLE_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path, animations: 'disabled' });
}

/** "1,234.50" from the API's decimal text, as the console shows amounts. */
export function shown(amount: string | number): string {
  const [whole, frac = ''] = String(amount).replace('-', '').split('.') as [string, string?];
  const cents = (frac + '00').slice(0, 2);
  return (String(amount).startsWith('-') ? '−' : '') + whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + '.' + cents;
}
