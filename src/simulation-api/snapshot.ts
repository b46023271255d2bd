import { importSnapshotAsChild } from '../domain/child-sandboxes.js';
import { exportSnapshot } from '../domain/snapshot-export.js';
import { catchUp } from '../http/command.js';
import { OK } from '../http/envelope.js';
import type { Handlers } from '../http/router.js';
import { readSnapshot } from '../http/snapshot-document.js';
import type { ServerDeps } from '../server-deps.js';

/** snapshot/export and snapshot/import: an account's whole state as one document, and back into a child sandbox. */
export function snapshotHandlers(deps: ServerDeps): Handlers {
  return {
    'POST /sandbox/v1/snapshot/export': (c) => {
      const nowMs = catchUp(c, deps);
      // One transaction: every table read as of the same instant.
      const { text } = deps.writes.transaction(() => exportSnapshot(deps, c.get('account').id, nowMs));
      return c.body(text, 200, { 'Content-Type': 'application/json' });
    },
    'POST /sandbox/v1/snapshot/import': async (c, body) => {
      // A tenant of a shared server loads only what the server itself wrote: a state its own domain made.
      const doc = await readSnapshot(deps, body, { ownOnly: deps.config.mode === 'hosted', checked: true });
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
