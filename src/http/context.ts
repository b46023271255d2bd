import type { HttpBindings } from '@hono/node-server';
import type { Account } from '../domain/accounts/accounts.js';
import type { ServerDeps } from './server-deps.js';
import type { SeenClock } from '../domain/kernel/clock.js';
import type { OperationStats } from './operation-stats.js';
import type { Redactor } from '../redaction/redactor.js';
import type { FaultEffect } from '../request-log/captured-request.js';

/**
 * A domain mutation: run once, in one transaction, at the account's "now", given the deps whose `db` is that
 * transaction; its result is the answer's body.
 */
export type Command<T = object> = (deps: ServerDeps, nowMs: number) => T | Promise<T>;

/** What an injected fault asks of a request before it runs: a wait of `latencyMs` of wall time, or a hold. */
export interface InjectedWait {
  latencyMs: number;
  /** Held until the account releases it (faults/release, faults/clear, reset). */
  hold: boolean;
}

/**
 * The bindings of a request the console makes for one of its pages (`app.request(path, init, CONSOLE_CALL)`): a
 * request from outside cannot carry them, so the request log tells the console's calls from the partner's by them.
 */
export const CONSOLE_CALL = Object.freeze({ fromConsole: true as const });

/** Per-request values set by middleware. */
export interface AppEnv {
  Bindings: HttpBindings & { fromConsole?: true };
  Variables: {
    requestId: string;
    /** The counts of the operation the request was routed to (metrics.ts); unset for a request no route took. */
    operation?: OperationStats;
    /** The server's redactor, set with the request id: a hint passes it before it is answered. */
    redactor: Redactor;
    account: Account;
    /** The account clock as authentication read it with the account (the request's "now" comes from it). */
    accountSeen: SeenClock;
    keyId: string;
    /**
     * The due instant of the account's earliest foreground job (Infinity: none), as authentication read it with the
     * account, while no job of the account has run since; unset when not known (domain/kernel/jobs.ts, `caughtUp`).
     */
    nextJobDueMs?: number;
    /** The tenant the account belongs to: itself, or its parent for a child sandbox (every hosted budget is its). */
    tenantId: string;
    /** The request body, read and checked against its operation's schema by the route's body step (router.ts). */
    body: Record<string, unknown>;
    /**
     * Set by the faults step of an idempotent operation: the wait an injected fault asks of this request, which the
     * route hands to the idempotency runner (it waits after reserving the key, so a retry sees 4212).
     */
    injectedWait?: InjectedWait;
    /** An idempotent operation's command, prepared by its handler for the keyed runner step (router.ts). */
    command?: Command;
    /** What an injected fault did to this request, for its request-log record (faults, readiness faults). */
    faultEffect?: FaultEffect;
    /**
     * Hosted mode, a body without a declared length: spends the key's rate-limit budget for `bytes` more of it as it
     * is read; false when the budget is spent (rate-limit.ts).
     */
    spendBodyBytes?: (bytes: number) => boolean;
    /**
     * Hosted mode: spends `tokens` more of the tenant's rate-limit budget for work the request's own token does not
     * cover (a snapshot export, by its rows), before it is done; the seconds to wait when the budget lacks them.
     */
    spendTokens?: (tokens: number) => { ok: true } | { ok: false; waitSeconds: number };
  };
}
