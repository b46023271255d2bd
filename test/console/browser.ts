import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { createTestSandbox, type TestSandbox } from '../helpers/sandbox.js';

// Shared by the console's browser tests: Debian's Chromium driven by playwright-core (no browser download),
// a test sandbox listening on a loopback port, axe-core, and the screenshot writer.

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOT_DIR = join(dirname(new URL(import.meta.url).pathname), '../../docs/console');
/** Generous: the suite runs on a loaded machine; waits are on conditions, never on durations. */
export const WAIT_MS = 30_000;

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: WAIT_MS });
}

export async function listeningSandbox(): Promise<{ sb: TestSandbox; base: string }> {
  const sb = createTestSandbox();
  await new Promise<void>((resolve) => sb.server.listen(0, '127.0.0.1', resolve));
  return { sb, base: `http://127.0.0.1:${(sb.server.address() as AddressInfo).port}` };
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
