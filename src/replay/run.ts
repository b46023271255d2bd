import { contractFor } from '../contracts/registry.js';
import { SecretWatch } from '../proxy/secrets.js';
import type { RecordedExchange } from '../proxy/record.js';
import { call, KeyRefused, ChildRefused, type Target } from '../verify/http.js';
import { compareAnswers, type Divergence, type ValueDifference } from './compare.js';
import { IdMap } from './ids.js';
import { planRequest } from './plan.js';
import type { RecordingSummary } from './recording.js';
import { enumValuesAt } from './schema-enums.js';

// The replay: a child sandbox of the caller's account (so the caller's own balance, cards and events never change),
// made to deliver nothing (no webhook attempt, no readiness delivery, whatever the recording configures), seeded as
// the recording's account was, its clock frozen and moved by the recorded gaps between requests, each recorded
// request sent with the identifiers it needs mapped to the replay's, and each answer compared with the recorded one.
// The child is deleted at the end, on a failure and on an interruption alike; a child it could not delete is said so,
// never called deleted. Exchanges stream through: nothing here grows with the recording's length.
// docs/design.md section 13 ("Record and replay") is the rule; docs/production.md the partner's walk-through.

export interface Outcome {
  seq: number;
  operation: string;
  method: string;
  /** The recorded path (redacted): the same on every replay. */
  path: string;
  recordedStatus: number;
  replayedStatus?: number;
  skipped?: string;
  divergences: Divergence[];
  values: ValueDifference[];
  /** What could not be compared (a body the recording did not keep). */
  note?: string;
}

export interface ReplayOptions {
  baseUrl: string;
  apiKey: string;
  /** The recording's exchanges in request order (recording.ts streams them from the file). */
  exchanges: AsyncIterable<RecordedExchange> | Iterable<RecordedExchange>;
  /** What the setup reads of the whole recording before the first exchange (recording.ts, `scanRecording`). */
  summary: Omit<RecordingSummary, 'exchanges'>;
  /** Names the child sandbox (its list shows it). */
  name: string;
  timeoutMs?: number;
  /** Aborted: stop after the exchange under way, then delete the child. */
  signal?: AbortSignal;
  /** Aborted: stop now, abandoning the exchange under way, then delete the child. */
  hurry?: AbortSignal;
  /** Each exchange's outcome as soon as it is known, its texts already redacted. */
  onOutcome?: (outcome: Outcome) => void;
}

/** What became of the child sandbox: deleted, found already gone, or left (and why). */
type ChildFate = { deleted: true; alreadyGone?: true } | { deleted: false; why: string };

export interface ReplayResult {
  childAccountId: string;
  /** When the child deletes itself if nobody does (wall time, ISO). */
  childExpiresAt: string | undefined;
  child: ChildFate;
  interrupted: boolean;
  /** The child's opening balance and fee rate, and where they came from. */
  seeded: string;
  /** Why the replay stopped before its end (the target unreachable, the key refused); the child was still deleted. */
  failure?: Error;
}

const DEFAULT_BALANCE = 10_000;
/**
 * Fields the replay itself decides, never compared: it keeps the child's clock frozen, and its webhook disabled (so
 * the child never delivers to the receiver the recording configured), which the events' delivery state shows.
 */
const REPLAY_OWNED: Record<string, RegExp[]> = {
  'POST /sandbox/v1/clock': [/^\/mode$/],
  'PUT /v1/webhook': [/^\/enabled$/],
  'GET /v1/webhook': [/^\/enabled$/],
  'POST /v1/webhook/rotate-secret': [/^\/enabled$/],
  'POST /sandbox/v1/events': [/^\/events\/\d+\/delivery(\/|$)/],
};
const CHILD_TTL_SECONDS = 3600;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const route = (path: string) => path.split('?')[0]!;

/** The opening balance the recording's first assetList showed (USDT available), and its first BIN's deposit rate. */
function seedFor(summary: ReplayOptions['summary']): { balance: number; depositFeeRate?: string; from: string } {
  const assets = summary.firstAssetList;
  const list = assets && (assets.response.body as { assetList?: unknown }).assetList;
  const usdt = Array.isArray(list) ? list.find((a) => isObject(a) && a.currency === 'USDT') : undefined;
  const amount = isObject(usdt) ? usdt.availableAmount : undefined;
  const bins = summary.firstBinList;
  const binList = bins && (bins.response.body as { availableCardBinList?: unknown }).availableCardBinList;
  const rate =
    Array.isArray(binList) && isObject(binList[0]) && isObject(binList[0].fee) ? binList[0].fee.deposit : undefined;
  const depositFeeRate = typeof rate === 'string' && /^0(\.\d{1,6})?$/.test(rate) ? rate : undefined;
  const rateText = depositFeeRate === undefined ? '' : `, deposit fee rate ${depositFeeRate} (first card/binList)`;
  if (typeof amount === 'string' && /^\d{1,10}(\.\d{1,6})?$/.test(amount)) {
    return {
      balance: Number(amount),
      depositFeeRate,
      from: `${amount} USDT (first wallet/assetList, seq ${assets!.seq})${rateText}`,
    };
  }
  return {
    balance: DEFAULT_BALANCE,
    depositFeeRate,
    from: `${DEFAULT_BALANCE} USDT (no wallet/assetList recorded)${rateText}`,
  };
}

/**
 * The webhook endpoint the recorded account already had when the recording began (a read shows one, or the first
 * PUT answers no secret, which only a first configuration does): the child gets one too, so the first PUT of the
 * replay is an update there as well.
 */
function webhookBefore(summary: ReplayOptions['summary']): string | undefined {
  const first = summary.firstWebhook;
  if (!first || !isObject(first.response.body)) return undefined;
  const answer = first.response.body;
  const existed =
    (first.method === 'GET' && answer.configured === true) ||
    (first.method === 'PUT' && !('secret' in answer)) ||
    route(first.path) === '/v1/webhook/rotate-secret';
  const url = answer.url ?? (isObject(first.request.body) ? first.request.body.url : undefined);
  return existed && typeof url === 'string' && !url.includes('[REDACTED]') ? url : undefined;
}

async function createChild(parent: Target, name: string, seed: ReturnType<typeof seedFor>) {
  const x = await call(parent, 'POST', '/sandbox/v1/sandboxes/create', {
    body: {
      name,
      balance: seed.balance,
      ttlSeconds: CHILD_TTL_SECONDS,
      // A replay never delivers: a target that cannot promise it (an older sandbox refuses the field) is refused.
      deliveries: false,
      ...(seed.depositFeeRate !== undefined && { depositFeeRate: seed.depositFeeRate }),
    },
  });
  if (x.status === 401 || x.status === 403) throw new KeyRefused(`the target refused the API key (HTTP ${x.status})`);
  const body = x.json as { accountId?: unknown; apiKey?: unknown; expiresAt?: unknown; message?: unknown } | undefined;
  if (x.status !== 200 || typeof body?.accountId !== 'string' || typeof body.apiKey !== 'string') {
    const why =
      x.status === 404
        ? 'it offers no child sandboxes (/sandbox/v1/sandboxes)'
        : `HTTP ${x.status} ${String(body?.message ?? '')}`;
    throw new ChildRefused(`the target cannot make a child sandbox to replay in: ${why.trim()}`);
  }
  const expiresAt = typeof body.expiresAt === 'string' ? body.expiresAt : undefined;
  return { accountId: body.accountId, apiKey: body.apiKey, expiresAt };
}

/** Attempts at deleting the child; a 429 waits its Retry-After (at most MAX_DELETE_WAIT_MS) before the next. */
const DELETE_ATTEMPTS = 5;
const MAX_DELETE_WAIT_MS = 10_000;

/** Deletes the child, retrying what may pass later (a 429, an unreachable target); says what became of it. */
async function deleteChild(parent: Target, accountId: string): Promise<ChildFate> {
  let why = 'not attempted';
  for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
    let waitMs = 1000;
    try {
      const x = await call(parent, 'POST', '/sandbox/v1/sandboxes/delete', { body: { accountId } });
      if (x.status === 200) return { deleted: true };
      // Its TTL (or its parent, elsewhere) deleted it already: it is gone, though not by this replay.
      if (x.status === 404) return { deleted: true, alreadyGone: true };
      const message = (x.json as { message?: unknown } | undefined)?.message;
      why = `HTTP ${x.status}${typeof message === 'string' ? ` ${message}` : ''}`;
      if (x.status !== 429 && x.status < 500) return { deleted: false, why };
      const retryAfter = Number(x.headers.get('retry-after'));
      if (retryAfter > 0) waitMs = Math.min(MAX_DELETE_WAIT_MS, retryAfter * 1000);
    } catch (err) {
      why = (err as Error).message;
    }
    if (attempt < DELETE_ATTEMPTS) await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
  return { deleted: false, why };
}

export async function replay(opts: ReplayOptions): Promise<ReplayResult> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const parent: Target = { baseUrl: opts.baseUrl, apiKey: opts.apiKey, timeoutMs };
  const seed = seedFor(opts.summary);
  const created = await createChild(parent, opts.name, seed);
  const child: Target = { baseUrl: opts.baseUrl, apiKey: created.apiKey, timeoutMs };
  const watch = new SecretWatch([opts.apiKey, created.apiKey]);
  const stopped = () => opts.signal?.aborted === true || opts.hurry?.aborted === true;
  let interrupted = false;
  let failure: Error | undefined;
  try {
    await call(child, 'POST', '/sandbox/v1/clock', { body: { mode: 'frozen' } });
    const webhook = webhookBefore(opts.summary);
    if (webhook) await call(child, 'PUT', '/v1/webhook', { body: { url: webhook, enabled: false } });
    const ids = new IdMap();
    // The recorded account's clock: a production clock runs; a recorded sandbox may have frozen its own.
    let recordedClockRuns = true;
    let lastMs: number | undefined;
    for await (const x of opts.exchanges) {
      if (stopped()) {
        interrupted = true;
        break;
      }
      const atMs = Date.parse(x.time);
      const gapMs = lastMs === undefined ? 0 : atMs - lastMs;
      lastMs = atMs;
      if (recordedClockRuns && gapMs >= 1) {
        await call(child, 'POST', '/sandbox/v1/clock', { body: { advanceSeconds: gapMs / 1000 }, signal: opts.hurry });
      }
      const outcome = await replayOne(x, child, ids, watch, opts.hurry);
      if (route(x.path) === '/sandbox/v1/clock' && x.status === 200 && isObject(x.response.body)) {
        const mode = x.response.body.mode;
        if (mode === 'frozen' || mode === 'running') recordedClockRuns = mode === 'running';
      }
      opts.onOutcome?.(outcome);
    }
  } catch (err) {
    // A second interrupt abandons the exchange under way: an interruption, not a failure of the target.
    if (opts.hurry?.aborted) interrupted = true;
    else failure = err as Error;
  }
  const fate = await deleteChild(parent, created.accountId);
  return {
    childAccountId: created.accountId,
    childExpiresAt: created.expiresAt,
    child: fate,
    interrupted,
    seeded: seed.from,
    ...(failure && { failure }),
  };
}

async function replayOne(
  x: RecordedExchange,
  child: Target,
  ids: IdMap,
  watch: SecretWatch,
  hurry: AbortSignal | undefined,
): Promise<Outcome> {
  const base = {
    seq: x.seq,
    operation: contractFor(x.method, route(x.path))?.key ?? `${x.method} ${route(x.path)}`,
    method: x.method,
    path: x.path,
    recordedStatus: x.status,
    divergences: [],
    values: [],
  };
  const plan = planRequest(x, ids);
  if ('skip' in plan) {
    ids.noteAnswer(x.response.body);
    return { ...base, skipped: watch.redactor.text(plan.skip) };
  }
  ids.noteRequest(x.request.body);
  const sent = plan.send;
  const answer = await call(child, sent.method, sent.path, { raw: sent.raw, headers: sent.headers, signal: hurry });
  watch.learnBody(answer.json);
  const redactor = watch.redactor;
  const body =
    answer.json !== undefined ? redactor.value(answer.json) : answer.text === '' ? null : redactor.text(answer.text);
  const recordedBody = x.response.note ? undefined : x.response.body;
  const found = compareAnswers(
    { status: x.status, body: recordedBody },
    { status: answer.status, body },
    ids,
    (pointer) => enumValuesAt(x.method, route(x.path), x.status, pointer),
    REPLAY_OWNED[base.operation],
  );
  const clean = <T extends { recorded: string; replayed: string }>(d: T): T => ({
    ...d,
    recorded: redactor.text(d.recorded),
    replayed: redactor.text(d.replayed),
  });
  return {
    ...base,
    replayedStatus: answer.status,
    divergences: found.divergences.map(clean),
    values: found.values.map(clean),
    ...(x.response.note && { note: `response ${x.response.note}: only the status was compared` }),
  };
}
