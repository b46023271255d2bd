import type { Context, MiddlewareHandler } from 'hono';
import type { ServerDeps } from './server-deps.js';
import {
  completeKey,
  findKey,
  keyLookup,
  purgeSomeExpiredKeys,
  releaseKey,
  renewLease,
  requestHash,
  reserveKey,
  mismatchHint,
  type KeyRecord,
  type Lease,
  type StoredResponse,
} from '../domain/idempotency/keys.js';
import { caughtUpNow, accountNow } from './account-clock.js';
import { keepRenewing } from '../domain/kernel/lease.js';
import { runCommand } from './run-command.js';
import { waitInjected } from './injected-wait.js';
import type { AppEnv, Command, InjectedWait } from './context.js';
import { DomainError, invalidField } from '../domain/kernel/errors.js';

const KEY_PATTERN = /^[\x20-\x7e]+$/;
const MAX_KEY_LENGTH = 255;

/**
 * Spec rule 3: the key is echoed on every response to a keyed request, including the 400s of body validation
 * that are answered before `runKeyed` runs. Only a well-formed key is echoed (a malformed one gets the 400
 * that names it). Register on the keyed endpoints only.
 */
export function echoIdempotencyKey(): MiddlewareHandler<AppEnv> {
  return async function echoIdempotencyKey(c, next) {
    await next();
    const key = c.req.header('idempotency-key');
    if (key !== undefined && !keySentTwice(c) && key.length <= MAX_KEY_LENGTH && KEY_PATTERN.test(key))
      c.res.headers.set('Idempotency-Key', key);
  };
}

/**
 * Two Idempotency-Key headers reach us joined as "a1, a2" (a valid key!): Node keeps them apart in
 * headersDistinct, which decides. A request without Node underneath (app.request) cannot carry two.
 */
function keySentTwice(c: Context<AppEnv>): boolean {
  return (c.env?.incoming?.headersDistinct?.['idempotency-key']?.length ?? 0) > 1;
}

/** The Idempotency-Key header, validated; undefined when absent. */
function readKey(c: Context<AppEnv>): string | undefined {
  const key = c.req.header('idempotency-key');
  if (key === undefined) return undefined;
  if (keySentTwice(c)) throw invalidField('Idempotency-Key must be sent once');
  if (key.trim() === '') throw invalidField('Idempotency-Key must not be empty');
  if (key.length > MAX_KEY_LENGTH) throw invalidField(`Idempotency-Key must be at most ${MAX_KEY_LENGTH} characters`);
  if (!KEY_PATTERN.test(key)) throw invalidField('Idempotency-Key must contain only printable ASCII characters');
  return key;
}

/** A keyed call: its endpoint, the body its key is bound to, and what an injected fault holds it in flight for. */
export interface KeyedCall {
  endpoint: string;
  body: unknown;
  /**
   * None: the key check, the command and its stored response commit in one transaction. Given: the key is
   * reserved (in flight) first, then the call waits (a latency, or a hold until released), so a concurrent retry
   * sees 4212 meanwhile. A call abandoned during its wait (its client gone) frees its key: it never ran.
   */
  wait: InjectedWait | undefined;
}

/**
 * The idempotency runner (spec "Idempotency"): runs a keyed command under the spec's rules. The command runs
 * synchronously inside one SQLite transaction together with the stored response, so there is no instant at which
 * the command happened and the key does not know it. That transaction is a savepoint of the turn's group commit
 * (store/transaction-runner.ts): the account's due timers run first in the same batch, and the answer waits for the batch's
 * commit, shared with the other writes of the turn. Called after body validation (400) and before any existence or
 * state check. Without a key it is the route's runner.
 */
export async function runKeyed(
  c: Context<AppEnv>,
  deps: ServerDeps,
  { endpoint, body, wait }: KeyedCall,
  command: Command,
): Promise<Response> {
  const account = c.get('account');
  const key = readKey(c);
  if (key === undefined) {
    if (account.requireIdempotencyKey) throw new DomainError('IDEMPOTENCY_KEY_REQUIRED');
    if (wait) await waitInjected(c, deps, wait);
    return c.json(await runCommand(c, deps, command), 200);
  }
  c.header('Idempotency-Key', key);

  const hash = requestHash(body);
  const lock = { account: account.id };

  const reserved = wait !== undefined;
  const holder = deps.instance;
  if (wait) {
    // Only a wait opens a window in which a concurrent retry can see the key; reserve it for that window, held by
    // this instance under a lease every instance on the database can read.
    const startMs = await caughtUpNow(c, deps);
    const existing = await deps.transactions.run(async (deps) => {
      await purgeSomeExpiredKeys(deps, account.id, startMs);
      const found = await findKey(deps, account.id, key, startMs, leaseClock(deps));
      if (!found) await reserveKey(deps, account.id, key, endpoint, body, hash, startMs, leaseFrom(deps));
      return found;
    }, lock);
    if (existing) return answerExisting(c, deps, key, { endpoint, body, hash }, existing);
    const stopRenewing = renewWhileHeld(deps, account.id, key);
    try {
      await waitInjected(c, deps, wait);
    } catch (err) {
      // Abandoned before it ran (its client gone, its account deleted, its instance stopping): the key is free for
      // a retry.
      await deps.transactions.run((deps) => releaseKey(deps.db, account.id, key, holder), lock);
      throw err;
    } finally {
      stopRenewing();
    }
  }
  // Its first reads (the account's due jobs, then the key) go with the transaction's BEGIN on PostgreSQL.
  const options = { ...lock, opening: [...deps.jobs.openingReads(account.id), keyLookup(account.id, key)] };
  const outcome = await deps.transactions.batched(async (deps) => {
    // The clock is read once, when the batch runs: the account's timers due by then first (each job in a savepoint of
    // its own: they stay done even when the command then fails), then the command, at that same instant.
    const nowMs = await accountNow(c, deps);
    const ranJobs = await deps.jobs.runForegroundDue(deps, account.id, nowMs);
    // Nothing else of this write to keep when the command fails: its failure rolls the whole write back, with no
    // savepoint of its own (two statements fewer, and two round trips on PostgreSQL).
    if (!ranJobs && !reserved) return keyed(deps, nowMs);
    try {
      return await deps.transactions.run((deps) => keyed(deps, nowMs));
    } catch (err) {
      // Failed results are not stored: the key is free for a retry.
      if (reserved) await releaseKey(deps.db, account.id, key, holder);
      return { failed: err };
    }
  }, options);
  if ('failed' in outcome) throw outcome.failed;
  if ('replay' in outcome) return answerExisting(c, deps, key, { endpoint, body, hash }, outcome.replay);
  return c.body(outcome.stored.body, 200, outcome.stored.headers);

  /**
   * The key check, the command and its stored response, all or nothing (one commit per keyed write, shared). The
   * account's transactions run one after another, so no concurrent request can slip between the check and the
   * completion.
   */
  async function keyed(deps: ServerDeps, nowMs: number): Promise<{ replay: KeyRecord } | { stored: StoredResponse }> {
    if (!reserved) await purgeSomeExpiredKeys(deps, account.id, nowMs);
    const existing = await findKey(deps, account.id, key!, nowMs, leaseClock(deps));
    // A reserved key is checked again: this instance may have lost it while it waited (its lease ran out unrenewed,
    // and another instance took the key and executed). Still held, or free, it executes here, once.
    if (existing && !(reserved && existing.state === 'in_flight' && existing.heldBy === holder))
      return { replay: existing };
    const stored: StoredResponse = {
      status: 200,
      body: JSON.stringify(await command(deps, nowMs)),
      headers: { 'content-type': 'application/json' },
    };
    await completeKey(deps, account.id, key!, endpoint, body, hash, stored, nowMs);
    return { stored };
  }
}

/**
 * The wall clock leases lapse on, where instances may share the database (PostgreSQL); none on a SQLite file, served
 * by one process, which releases its keys left in flight when it starts.
 */
function leaseClock(deps: ServerDeps): number | undefined {
  return deps.store.dialect === 'postgres' ? deps.wallClock() : undefined;
}

/** A lease of this instance on a key, from now. */
function leaseFrom(deps: ServerDeps): Lease {
  return { holder: deps.instance, untilMs: deps.wallClock() + deps.config.idempotencyLeaseMs };
}

/**
 * Renews the lease of a reserved key while its request waits (kernel/lease.ts), so that other instances never take a
 * key whose holder lives; a held request keeps its connection open, not the process alive. Answers the function that
 * stops it.
 */
function renewWhileHeld(deps: ServerDeps, accountId: string, key: string): () => void {
  return keepRenewing(
    deps.config.idempotencyLeaseMs,
    () => deps.transactions.run((deps) => renewLease(deps.db, accountId, key, leaseFrom(deps)), { account: accountId }),
    (err) => deps.logger.warn({ err, accountId }, 'could not renew the lease of a key in flight'),
  );
}

function answerExisting(
  c: Context<AppEnv>,
  deps: ServerDeps,
  key: string,
  call: { endpoint: string; body: unknown; hash: string },
  existing: KeyRecord,
): Response {
  if (existing.endpoint !== call.endpoint || existing.requestHash !== call.hash)
    throw new DomainError('IDEMPOTENCY_KEY_MISMATCH').withHint(mismatchHint(deps, existing, call.endpoint, call.body));
  if (existing.state === 'in_flight') throw new DomainError('IDEMPOTENCY_KEY_IN_PROGRESS').withHint(IN_PROGRESS_HINT);
  return replay(c, key, existing.response);
}

const IN_PROGRESS_HINT =
  'The first request with this Idempotency-Key has not answered yet (a fault holds it, or it is still running): ' +
  'retry once it has; a retry then replays its answer.';

function replay(c: Context<AppEnv>, key: string, stored: StoredResponse): Response {
  return c.body(stored.body, stored.status as 200, {
    ...stored.headers,
    'Idempotency-Key': key,
    'Idempotent-Replayed': 'true',
  });
}
