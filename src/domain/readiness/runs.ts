import { assertInTransaction } from '../../store/db.js';
import {
  appendAttempt,
  deliveriesOf,
  endWindow,
  findRun,
  insertDelivery,
  insertRun,
  markThrottleGone,
  openRunOf,
  openWindows,
  runOwesDeliveries,
  runsOf,
  storeApiChecks,
  takeArmed,
  trimRuns,
  type ArmedFault,
  type DeliveryClaim,
  type DeliveryRow,
  type RunEnd,
  type RunRow,
} from '../../store/readiness.js';
import type { Deps } from '../kernel/deps.js';
import { DomainError } from '../kernel/errors.js';
import { evaluateApiChecks, type WindowLog } from './api-checks.js';
import {
  API_CHECKS,
  RECEIVER_CHECKS,
  isDecided,
  noRequestLog,
  type CheckOutcome,
  type ReceiverCheckId,
} from './catalogue.js';
import { ledgerCheck } from './ledger-checks.js';
import { evaluateReceiverChecks, type ReadinessAttempt, type ReceiverDelivery } from './receiver-checks.js';

// Readiness runs (docs/readiness.md): a window of wall time in which the run arms three faults on the account and
// then judges, from the request log, how the integration handled them; and five signed test deliveries to the
// partner's receiver. Runs live in their own tables: never among the account's events or webhook deliveries.

export const DEFAULT_WINDOW_SECONDS = 600;
/** Runs kept per account (the newest): what readiness/list and the console show. */
const RUNS_KEPT = 10;

interface AttemptView {
  time: string;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

interface DeliveryView {
  deliveryId: string;
  check: ReceiverCheckId;
  eventId: string;
  attempts: AttemptView[];
}

export interface RunView {
  runId: string;
  status: 'running' | 'done';
  startedAt: string;
  endsAt: string;
  /** The run keeps its whole window even once every check is decided. */
  fullWindow: boolean;
  /** What ended the window; null while it runs. */
  endedBy: RunEnd | null;
  receiver: string | null;
  checks: CheckOutcome[];
  deliveries: DeliveryView[];
}

export interface PlannedDelivery {
  id: string;
  check: ReceiverCheckId;
  eventId: string;
}

export interface StartedRun {
  run: RunRow;
  /** The test deliveries to send now (none without a receiver). */
  deliveries: PlannedDelivery[];
}

const iso = (ms: number) => new Date(ms).toISOString();

async function windowsOf(deps: Pick<Deps, 'db' | 'readinessWindows'>): Promise<Map<string, number>> {
  const windows = deps.readinessWindows;
  windows.byAccount ??= new Map((await openWindows(deps.db)).map((w) => [w.account_id, w.ends_at_ms]));
  return windows.byAccount;
}

/** The account's open run, evaluated first if its window has ended. */
export async function settleOpenRun(deps: Deps, log: WindowLog, accountId: string): Promise<void> {
  const open = await openRunOf(deps.db, accountId);
  if (open) await settleRun(deps, log, open);
}

/**
 * Starts a run: its window opens now (wall time), its armed faults with it. Refused while another run of the
 * account is running (call `settleOpenRun` first, so one whose window has ended does not count).
 */
export async function startRun(
  deps: Deps,
  input: {
    accountId: string;
    windowSeconds: number;
    receiverUrl: string | null;
    requestLog: boolean;
    /** Keep the whole window even once every check is decided. */
    fullWindow: boolean;
    /** The instance that sends the test deliveries once the run commits, and its lease. */
    claim: DeliveryClaim;
  },
): Promise<StartedRun> {
  assertInTransaction(deps.db, 'startRun');
  const nowMs = deps.wallClock();
  const open = await openRunOf(deps.db, input.accountId);
  const latest = (await runsOf(deps.db, input.accountId, 1))[0];
  const running = open ?? (latest && (await runOwesDeliveries(deps.db, latest.id)) ? latest : undefined);
  if (running) {
    const why = open ? `its window ends at ${iso(open.ends_at_ms)}` : 'its test deliveries are still on the wire';
    throw new DomainError(
      'READINESS_RUN_RUNNING',
      `readiness run ${running.id} is still running (${why}): stop it with readiness/stop, or wait for it to end`,
    );
  }
  const run: RunRow = {
    id: 'rdy_' + deps.ids.base62(24),
    account_id: input.accountId,
    started_at_ms: nowMs,
    ends_at_ms: nowMs + input.windowSeconds * 1000,
    receiver_url: input.receiverUrl,
    drop_request_id: null,
    error_request_id: null,
    throttle_request_id: null,
    throttle_gone_ms: null,
    // Without a request log there is nothing to judge API use by: the window closes at once, nothing is armed.
    api_checks: input.requestLog ? null : JSON.stringify(API_CHECKS.map(noRequestLog)),
    ledger_check: null,
    full_window: input.fullWindow ? 1 : 0,
    ended_by: null,
  };
  await insertRun(deps.db, run);
  const deliveries: PlannedDelivery[] =
    input.receiverUrl === null
      ? []
      : RECEIVER_CHECKS.map((check) => ({ id: 'rdl_' + deps.ids.base62(24), check, eventId: deps.ids.eventId() }));
  for (const [seq, d] of deliveries.entries()) {
    await insertDelivery(
      deps.db,
      { id: d.id, run_id: run.id, account_id: input.accountId, seq, check_id: d.check, event_id: d.eventId },
      input.claim,
    );
  }
  await trimRuns(deps.db, input.accountId, RUNS_KEPT);
  deps.readinessWindows.byAccount = undefined;
  return { run, deliveries };
}

export async function getRun(deps: Deps, log: WindowLog, accountId: string, runId: string): Promise<RunRow> {
  const run = await findRun(deps.db, accountId, runId);
  if (!run) throw new DomainError('READINESS_RUN_NOT_FOUND');
  return settleRun(deps, log, run);
}

/** Ends the run's window now (a run already ended is left as it is). */
export async function stopRun(deps: Deps, accountId: string, runId: string): Promise<void> {
  const run = await findRun(deps.db, accountId, runId);
  if (!run) throw new DomainError('READINESS_RUN_NOT_FOUND');
  await endWindow(deps.db, run.id, deps.wallClock(), 'stop');
  deps.readinessWindows.byAccount = undefined;
}

/** The account's newest runs, newest first, each evaluated if its window has ended. */
export async function listRuns(deps: Deps, log: WindowLog, accountId: string): Promise<RunRow[]> {
  const runs = [];
  for (const run of await runsOf(deps.db, accountId, RUNS_KEPT)) runs.push(await settleRun(deps, log, run));
  return runs;
}

/**
 * Evaluates the API-use checks of a run whose window has ended, once: the stored result never changes after. A run
 * that did not ask for its full window ends here as soon as every check is decided (`isDecided`), at the first read
 * (readiness/get, list, the console, the CLI's poll each second) that finds them so.
 */
async function settleRun(deps: Deps, log: WindowLog, run: RunRow): Promise<RunRow> {
  if (run.api_checks !== null) return run;
  const nowMs = deps.wallClock();
  if (run.ends_at_ms > nowMs) {
    if (run.full_window === 1 || !(await checksOf(deps, log, run, nowMs)).every(isDecided)) return run;
    await endWindow(deps.db, run.id, nowMs, 'decided');
    run = (await findRun(deps.db, run.account_id, run.id)) ?? run;
  }
  await storeApiChecks(deps.db, run.id, JSON.stringify(await apiChecksUpTo(deps, log, run, run.ends_at_ms)));
  deps.readinessWindows.byAccount = undefined;
  return (await findRun(deps.db, run.account_id, run.id)) ?? run;
}

/** Every check of a run as it stands at `toMs` (receiver, API use up to then, ledger), in catalogue order. */
async function checksOf(deps: Deps, log: WindowLog, run: RunRow, toMs: number): Promise<CheckOutcome[]> {
  const api =
    run.api_checks === null
      ? await apiChecksUpTo(deps, log, run, toMs)
      : (JSON.parse(run.api_checks) as CheckOutcome[]);
  const deliveries = (await deliveriesOf(deps.db, run.id)).map(toDelivery);
  return [...evaluateReceiverChecks(deliveries), ...api, ledgerCheck(run.ledger_check)];
}

/** Evaluates the run when its window ends, should nobody ask before (the request log keeps only 1,000 requests). */
export function settleAtWindowEnd(deps: Deps, log: WindowLog, run: RunRow): void {
  const settle = async () => {
    try {
      if (!deps.store.open) return;
      const now = await findRun(deps.db, run.account_id, run.id);
      if (now) await settleRun(deps, log, now);
    } catch (err) {
      deps.logger.error({ err, runId: run.id }, 'readiness run not evaluated at the end of its window');
    }
  };
  const timer = setTimeout(() => void settle(), Math.max(0, run.ends_at_ms - deps.wallClock()));
  timer.unref();
}

/** The run as the API answers it. While it runs, its checks show what has been observed so far. */
export async function runView(deps: Deps, log: WindowLog, run: RunRow): Promise<RunView> {
  const deliveries = (await deliveriesOf(deps.db, run.id)).map(toDelivery);
  const checks = await checksOf(deps, log, run, Math.min(run.ends_at_ms, deps.wallClock()));
  return {
    runId: run.id,
    // Whichever instance sends the deliveries still owed (another's, or one that took them over), the run runs.
    status: run.api_checks !== null && !(await runOwesDeliveries(deps.db, run.id)) ? 'done' : 'running',
    startedAt: iso(run.started_at_ms),
    endsAt: iso(run.ends_at_ms),
    fullWindow: run.full_window === 1,
    endedBy: run.api_checks === null ? null : run.ended_by,
    receiver: run.receiver_url,
    // Runs stored before evidenceOmitted existed listed at most 20 ids and left none out that they told of; runs
    // stored before paired existed said of no pair.
    checks: checks.map((c) => ({ ...c, evidenceOmitted: c.evidenceOmitted ?? 0, paired: c.paired ?? null })),
    deliveries: deliveries.map((d) => ({
      deliveryId: d.id,
      check: d.check,
      eventId: d.eventId,
      attempts: d.attempts.map((a) => ({
        time: iso(a.atMs),
        status: a.status,
        latencyMs: a.latencyMs,
        error: a.error,
      })),
    })),
  };
}

function toDelivery(row: DeliveryRow): ReceiverDelivery {
  return {
    id: row.id,
    check: row.check_id as ReceiverCheckId,
    eventId: row.event_id,
    attempts: JSON.parse(row.attempts) as ReadinessAttempt[],
  };
}

/**
 * Records one attempt of a test delivery `holder` sends; false when it no longer holds it (handed back or taken over:
 * the attempt is abandoned), the database is closed or the account deleted.
 */
export async function recordAttempt(
  deps: Deps,
  deliveryId: string,
  attempt: ReadinessAttempt,
  holder: string,
): Promise<boolean> {
  return deps.store.open && (await appendAttempt(deps.db, deliveryId, JSON.stringify(attempt), holder));
}

/**
 * Whether the account's open window has this armed fault: if so it falls on `requestId` (and is spent), and the id of
 * its run is answered. Reads and keyed writes call this on every request, so an account without an open window is
 * answered from memory.
 */
export async function takeArmedFault(
  deps: Deps,
  kind: ArmedFault,
  accountId: string,
  requestId: string,
): Promise<string | undefined> {
  const nowMs = deps.wallClock();
  const endsAtMs = (await windowsOf(deps)).get(accountId);
  if (endsAtMs === undefined || nowMs >= endsAtMs) return undefined;
  return await takeArmed(deps.db, kind, accountId, requestId, nowMs);
}

/**
 * Notes that the client that got the run's 429 closed the connection it came on (the first such close counts): a
 * request after it is no client waiting out Retry-After (waits-retry-after).
 */
export async function noteThrottledClientGone(deps: Deps, runId: string): Promise<void> {
  assertInTransaction(deps.db, 'noteThrottledClientGone');
  await markThrottleGone(deps.db, runId, deps.wallClock());
}

/** The API-use checks over the run's window up to `toMs`, from the request log. */
async function apiChecksUpTo(deps: Deps, log: WindowLog, run: RunRow, toMs: number): Promise<CheckOutcome[]> {
  const { keyedWrites, notJudged } = deps.readinessPaths;
  const requests = (await log.requests(run.account_id, run.started_at_ms, toMs)).filter((r) => !notJudged.has(r.path));
  const bodies = new Map<number, unknown>();
  const bodyOf = async (seq: number) => {
    if (!bodies.has(seq)) bodies.set(seq, await log.bodyOf(seq));
    return bodies.get(seq);
  };
  return evaluateApiChecks({
    requests,
    keyedWrites,
    faults: {
      drop: run.drop_request_id,
      error: run.error_request_id,
      throttle: run.throttle_request_id,
      throttleGoneMs: run.throttle_gone_ms,
    },
    bodyOf,
  });
}
