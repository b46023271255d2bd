import { test } from 'vitest';
import { startReceiver, type Receiver } from './webhook-receiver.js';
import { putWebhookConfig } from './core.js';
import {
  FUNDED_ACCOUNT,
  createTestSandbox,
  type AccountHandle,
  type SandboxOptions,
  type TestSandbox,
} from './sandbox.js';

// The fixtures every sandbox test starts from (vitest `test.extend`): a fresh in-memory sandbox (`sb`, no port, a fake
// wall clock) and an account made through the operator API (`acct`), closed when the test finishes.
//   sandboxTest('rule', async ({ sb, acct }) => ...)
//   sandboxTest.override({ accountOptions: FUNDED_ACCOUNT })    // in a file or a describe: another account
// Files whose steps are module-level functions hand the fixtures to their variables in one line:
//   sandboxTest.beforeEach(({ sb: s, acct: a }) => void ([sb, acct] = [s, a]));

/** The body of `POST /admin/v1/accounts` (balance, depositFeeRate, requireIdempotencyKey, ...). */
type AccountOptions = Record<string, unknown>;

export { FUNDED_ACCOUNT };

/** The account `acct` is, unless a file or a describe overrides it. */
const DEFAULT_ACCOUNT: AccountOptions = { balance: 100 };

export const sandboxTest = test.extend<{
  /** Options of the sandbox (config, logger); override per describe. */
  sandboxOptions: SandboxOptions;
  /** Options of the account `acct`; override per describe. */
  accountOptions: AccountOptions;
  sb: TestSandbox;
  acct: AccountHandle;
}>({
  sandboxOptions: {},
  accountOptions: DEFAULT_ACCOUNT,
  sb: async ({ sandboxOptions }, use) => {
    const sb = createTestSandbox(sandboxOptions);
    await use(sb);
    await sb.close();
  },
  acct: async ({ sb, accountOptions }, use) => {
    await use(await sb.account(accountOptions));
  },
});

/** sandboxTest plus a real webhook receiver on loopback (`rx`) configured as the account's webhook (`secret`). */
export const webhookTest = sandboxTest.extend<{ rx: Receiver; secret: string }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern: none
  rx: async ({}, use) => {
    const rx = await startReceiver();
    await use(rx);
    await rx.close();
  },
  secret: async ({ sb, acct, rx }, use) => {
    const res = await putWebhookConfig(sb, acct.apiKey, { url: rx.url });
    if (res.status !== 200) throw new Error(`PUT /v1/webhook failed: ${res.status} ${JSON.stringify(res.body)}`);
    await use(res.body.secret as string);
  },
});

/** sandboxTest with the FUNDED_ACCOUNT (0 % deposit fee, 1,000 USDT), where most simulation tests start. */
export const fundedTest = sandboxTest.extend<{ accountOptions: AccountOptions }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern: none
  accountOptions: async ({}, use) => {
    await use(FUNDED_ACCOUNT);
  },
});

/**
 * Puts every fixture of this file back to its default. A file's top-level `override` replaces the fixtures for good,
 * and where test files share a worker's modules (vitest `isolate: false`) the next file would inherit it: the setup
 * file calls this before each test file.
 */
export function restoreFixtureDefaults(): void {
  sandboxTest.override({ sandboxOptions: {}, accountOptions: DEFAULT_ACCOUNT });
  webhookTest.override({ sandboxOptions: {}, accountOptions: DEFAULT_ACCOUNT });
  fundedTest.override({ sandboxOptions: {}, accountOptions: FUNDED_ACCOUNT });
}
