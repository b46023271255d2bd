import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { configSecrets, type Config } from './config.js';
import { pathsJudgedAs } from './contracts/files.js';
import { createAccount, ensureDepositAddress, findAccount } from './domain/accounts/accounts.js';
import { DomainError } from './domain/kernel/errors.js';
import { asSnapshotInvalid, bootSnapshot } from './domain/snapshots/import.js';
import { readSnapshot } from './http/snapshot-document.js';
import { hasAccounts, snapshotAccountId } from './store/snapshot.js';
import { findKeyByValue, issueKey } from './domain/accounts/api-keys.js';
import { ensureDefaultBin } from './domain/cards/bins.js';
import { registerCardJobs } from './domain/cards/cards.js';
import type { ServerDeps } from './server-deps.js';
import { EventBus } from './domain/events/bus.js';
import { HeldRequests } from './domain/faults/held-requests.js';
import { releaseAllInFlight } from './store/idempotency.js';
import { Ids, type RandomSource } from './domain/kernel/ids.js';
import { JobRunner } from './domain/kernel/jobs.js';
import { Meter } from './metering/meter.js';
import { silentLogger, type Logger } from './domain/kernel/logger.js';
import { registerSimulation, SIMULATION_EVENT_ENRICHERS } from './domain/network/simulation.js';
import { ServerSecret } from './domain/kernel/secrets.js';
import { Redactor } from './redaction/redactor.js';
import { bootstrapAccountId, rememberBootstrapAccount, watchAccountRows } from './store/accounts.js';
import { openDb } from './store/db.js';
import { TransactionRunner } from './store/transaction-runner.js';
import { registerWebhooks } from './webhooks/index.js';

export interface RuntimeOptions {
  config: Config;
  logger?: Logger;
  wallClock?: () => number;
  random?: RandomSource;
}

/**
 * Opens the store, wires the domain together and prepares the first-start state. No network, no timers. Built in
 * dependency order: the store, then what needs only the store, then the job kinds (closures over the finished
 * deps), so no member is bound late.
 */
export function createDeps(opts: RuntimeOptions): ServerDeps {
  const { config } = opts;
  const db = openDb(config.dbPath);
  // Lets a request take its account clock from the row it authenticated with (domain/kernel/clock.ts, `now` given what a request saw).
  watchAccountRows(db);
  const logger = opts.logger ?? silentLogger;
  const wallClock = opts.wallClock ?? Date.now;
  const transactions = new TransactionRunner(db);
  const deps: ServerDeps = {
    db,
    transactions,
    config,
    secret: loadSecret(config),
    ids: new Ids(opts.random),
    wallClock,
    jobs: new JobRunner({ db, transactions, logger, wallClock }),
    heldRequests: new HeldRequests(wallClock),
    events: new EventBus(),
    logger,
    meter: new Meter(),
    redactor: new Redactor(configSecrets(config)),
    eventEnrichers: SIMULATION_EVENT_ENRICHERS,
    readinessPaths: { keyedWrites: pathsJudgedAs('keyed-write'), notJudged: pathsJudgedAs('not-judged') },
  };
  registerCardJobs(deps);
  registerWebhooks(deps);
  registerSimulation(deps);
  transactions.run(() => ensureDefaultBin(deps));
  // Execution and completion of a keyed request commit together, so a key still in flight after a crash
  // never executed: releasing it lets the client's retry run.
  const released = releaseAllInFlight(db);
  if (released > 0) deps.logger.warn({ released }, 'released idempotency keys left in flight by a crash');
  return deps;
}

/** The server secret: configured text, else `<db>.secret` (created once, mode 0600), else random for :memory:. */
function loadSecret(config: Config): ServerSecret {
  if (config.secret) return new ServerSecret(createHash('sha256').update(config.secret).digest());
  if (config.dbPath === ':memory:') return ServerSecret.random();
  const file = `${config.dbPath}.secret`;
  if (!existsSync(file)) {
    writeFileSync(file, ServerSecret.randomText(), { mode: 0o600, flag: 'wx' });
  }
  return new ServerSecret(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url'));
}

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
  const existing = snapshotAccountId(db);
  if (existing && findAccount(deps, existing)) return { accountId: existing, reused: true };
  if (hasAccounts(db)) {
    throw new SnapshotFileError(`${deps.config.dbPath} already holds accounts: a snapshot starts a new database only`);
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
    const booted = asSnapshotInvalid(() => deps.transactions.run(() => bootSnapshot(deps, doc, deps.config.apiKey)));
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
export function bootstrapAccount(deps: ServerDeps): Bootstrap | undefined {
  const { config, db } = deps;
  if (!config.bootstrapAccount) return undefined;
  if (config.apiKey) {
    if (findKeyByValue(deps, config.apiKey)) return undefined;
    return deps.transactions.run(() => {
      const account = newBootstrapAccount(deps);
      issueKey(deps, account.id, config.apiKey);
      return { accountId: account.id };
    });
  }
  const existing = bootstrapAccountId(db);
  if (existing && findAccount(deps, existing)) return { accountId: existing, reused: true };
  return deps.transactions.run(() => {
    const account = newBootstrapAccount(deps);
    const { apiKey } = issueKey(deps, account.id);
    rememberBootstrapAccount(db, account.id);
    return { accountId: account.id, newApiKey: apiKey };
  });
}

function newBootstrapAccount(deps: ServerDeps) {
  return createAccount(deps, {
    name: 'bootstrap',
    depositFeeRatePpm: deps.config.depositFeeRatePpm,
    depositAddress: 'auto',
    balanceMicros: deps.config.seedBalanceMicros,
  });
}
