import type { Context } from 'hono';
import { importSnapshotAsChild } from '../domain/accounts/child-sandboxes.js';
import { DomainError } from '../domain/kernel/errors.js';
import { exportSnapshot, snapshotRows } from '../domain/snapshots/export.js';
import { caughtUpNow } from '../http/account-clock.js';
import type { AppEnv } from '../http/context.js';
import { OK } from '../http/envelope.js';
import type { Handlers } from '../http/router.js';
import { readSnapshot } from '../http/snapshot-document.js';
import type { ServerDeps } from '../http/server-deps.js';

/**
 * Hosted mode: an export spends one more request of the tenant's budget per this many rows (at most a second of
 * budget), paid before the document is built: one token answered 8 MiB documents as fast as a tenant could ask.
 */
const ROWS_PER_TOKEN = 1000;

/** Pays for an export of the account's rows from the tenant's budget, or refuses it (429, Retry-After). */
async function payForExport(c: Context<AppEnv>, deps: ServerDeps, accountId: string): Promise<void> {
  const spend = c.get('spendTokens');
  if (!spend) return;
  const rows = await snapshotRows(deps, accountId);
  const paid = spend(Math.floor(rows / ROWS_PER_TOKEN));
  if (paid.ok) return;
  c.header('Retry-After', String(paid.waitSeconds));
  throw new DomainError(
    'RATE_LIMITED',
    `Too many requests: a snapshot of ${rows} rows costs one request of the budget per ${ROWS_PER_TOKEN} rows ` +
      `(at most ${deps.config.rateLimitPerSecond}); retry in ${paid.waitSeconds} s`,
  );
}

/** snapshot/export and snapshot/import: an account's whole state as one document, and back into a child sandbox. */
export function snapshotHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/snapshot/export': async (c) => {
      const nowMs = await caughtUpNow(c, deps);
      const accountId = c.get('account').id;
      await payForExport(c, deps, accountId);
      const { text } = await exportSnapshot(deps, accountId, nowMs, () => deps.fairShare.turn(c.get('tenantId')));
      return c.body(text, 200, { 'Content-Type': 'application/json' });
    },
    'POST /sandbox/v1/snapshot/import': async (c, body) => {
      // A tenant of a shared server loads only what the server itself wrote: a state its own domain made.
      const doc = await readSnapshot(deps, body, {
        ownOnly: deps.config.mode === 'hosted',
        checked: true,
        tenantId: c.get('tenantId'),
      });
      const child = await importSnapshotAsChild(deps, c.get('account'), doc);
      return c.json({
        ...OK,
        accountId: child.account.id,
        apiKey: child.apiKey,
        keyId: child.keyId,
        expiresAt: new Date(child.expiresAtMs).toISOString(),
        webhookSecret: child.webhookSecret ?? null,
        depositAddress: child.depositAddress,
        changedIds: child.changedIds,
      });
    },
  };
}
