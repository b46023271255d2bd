import { readFileSync } from 'node:fs';
import { createAccount, ensureDepositAddress, findAccount } from './domain/accounts/accounts.js';
import { findKeyByValue, issueKey } from './domain/accounts/api-keys.js';
import { DomainError } from './domain/kernel/errors.js';
import { asSnapshotInvalid, bootSnapshot } from './domain/snapshots/import.js';
import type { ServerDeps } from './http/server-deps.js';
import { readSnapshot } from './http/snapshot-document.js';
import { bootstrapAccountId, rememberBootstrapAccount } from './store/accounts.js';
import { lockFirstStart } from './store/db.js';
import { hasAccounts, snapshotAccountId } from './store/snapshot.js';

// What a server starts with: the ready account (its key printed once), or the state of a snapshot file.

export interface Bootstrap {
  accountId: string;
  /** The clear key, only when this start created it (it is shown once, then only its hash exists). */
  newApiKey?: string;
  /** The ready account an earlier start made (its key was printed then, and cannot be shown again). */
  reused?: boolean;
  /** Made from a snapshot file (serve --snapshot): its webhook endpoint's new secret, shown once, when it has one. */
  snapshot?: { webhookSecret?: string; changedIds: Record<string, string> };
}

/** A snapshot file `serve --snapshot` cannot start from: its message says why. */
export class SnapshotFileError extends Error {}

/**
 * serve --snapshot FILE: on a database without any account, the ready account holding the snapshot's state (its
 * ids, its BINs; a new key unless SANDBOX_API_KEY gives one, a new webhook secret). A restart on the database it
 * made reuses that account; any other database with accounts is refused.
 */
export async function bootstrapFromSnapshot(deps: ServerDeps, file: string): Promise<Bootstrap> {
  const { db } = deps;
  const existing = await snapshotAccountId(db);
  if (existing && (await findAccount(deps, existing))) return { accountId: existing, reused: true };
  if (await hasAccounts(db)) {
    throw new SnapshotFileError(`${deps.store.where} already holds accounts: a snapshot starts a new database only`);
  }
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SnapshotFileError(`${file}: ${(err as Error).message}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SnapshotFileError(`${file}: a snapshot is a JSON object (what snapshot/export answers)`);
  }
  try {
    const doc = await readSnapshot(deps, body as Record<string, unknown>, { ownOnly: false });
    const booted = await asSnapshotInvalid(() =>
      deps.transactions.run((deps) => bootSnapshot(deps, doc, deps.config.apiKey)),
    );
    await ensureDepositAddress(deps, booted.accountId);
    return {
      accountId: booted.accountId,
      ...(booted.apiKey !== undefined && { newApiKey: booted.apiKey }),
      snapshot: {
        changedIds: booted.changedIds,
        ...(booted.webhookSecret !== undefined && { webhookSecret: booted.webhookSecret }),
      },
    };
  } catch (err) {
    if (err instanceof DomainError) throw new SnapshotFileError(`${file}: ${err.message}`);
    throw err;
  }
}

/**
 * The ready account: with SANDBOX_API_KEY, an account owning that key; otherwise, on a database without any
 * account, a fresh account whose key is printed once.
 */
export async function bootstrapAccount(deps: ServerDeps): Promise<Bootstrap | undefined> {
  const { config } = deps;
  if (!config.bootstrapAccount) return undefined;
  // Instances starting together on one database check and make under one lock: the first makes the account (and
  // prints its key), the others find it.
  return await deps.transactions.run(async (deps) => {
    await lockFirstStart(deps.db);
    if (config.apiKey) {
      if (await findKeyByValue(deps, config.apiKey)) return undefined;
      const account = await newBootstrapAccount(deps);
      await issueKey(deps, account.id, config.apiKey);
      return { accountId: account.id };
    }
    const existing = await bootstrapAccountId(deps.db);
    if (existing && (await findAccount(deps, existing))) return { accountId: existing, reused: true };
    const account = await newBootstrapAccount(deps);
    const { apiKey } = await issueKey(deps, account.id);
    await rememberBootstrapAccount(deps.db, account.id);
    return { accountId: account.id, newApiKey: apiKey };
  });
}

async function newBootstrapAccount(deps: ServerDeps) {
  return await createAccount(deps, {
    name: 'bootstrap',
    depositFeeRatePpm: deps.config.depositFeeRatePpm,
    depositAddress: 'auto',
    balanceMicros: deps.config.seedBalanceMicros,
  });
}
