import { contractFor } from '../contracts/registry.js';
import { SecretWatch } from '../proxy/secrets.js';
import type { RecordedExchange } from '../proxy/record.js';
import { call, KeyRefused, ChildRefused, type Target } from '../verify/http.js';
import { compareAnswers, type Divergence, type ValueDifference } from './compare.js';
import { IdMap } from './ids.js';
import { planRequest } from './plan.js';
import { enumValuesAt } from './schema-enums.js';

// The replay: a child sandbox of the caller's account (so the caller's own balance, cards and events never change),
// seeded as the recording's account was, its clock frozen and moved by the recorded gaps between requests, each
// recorded request sent with the identifiers it needs mapped to the replay's, and each answer compared with the
// recorded one. The child is deleted at the end, on a failure and on an interruption alike. docs/design.md section 13
// ("Record and replay") is the rule; docs/production.md the partner's walk-through.

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
  recording: RecordedExchange[];
  /** Names the child sandbox (its list shows it). */
  name: string;
  timeoutMs?: number;
  /** Aborted: stop after the exchange under way, then delete the child. */
  signal?: AbortSignal;
  /** Each exchange's outcome as soon as it is known, its texts already redacted. */
  onOutcome?: (outcome: Outcome) => void;
}

export interface ReplayResult {
  outcomes: Outcome[];
  childAccountId: string;
  interrupted: boolean;
  /** The child's opening balance and fee rate, and where they came from. */
  seeded: string;
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
function seedFor(recording: RecordedExchange[]): { balance: number; depositFeeRate?: string; from: string } {
  const ok = (x: RecordedExchange, path: string) =>
    x.status === 200 && route(x.path) === path && isObject(x.response.body);
  const assets = recording.find((x) => ok(x, '/v1/wallet/assetList'));
  const list = assets && (assets.response.body as { assetList?: unknown }).assetList;
  const usdt = Array.isArray(list) ? list.find((a) => isObject(a) && a.currency === 'USDT') : undefined;
  const amount = isObject(usdt) ? usdt.availableAmount : undefined;
  const bins = recording.find((x) => ok(x, '/v1/card/binList'));
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
function webhookBefore(recording: RecordedExchange[]): string | undefined {
  const first = recording.find((x) => x.status === 200 && /^\/v1\/webhook(\/rotate-secret)?$/.test(route(x.path)));
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
      ...(seed.depositFeeRate !== undefined && { depositFeeRate: seed.depositFeeRate }),
    },
  });
  if (x.status === 401 || x.status === 403) throw new KeyRefused(`the target refused the API key (HTTP ${x.status})`);
  const body = x.json as { accountId?: unknown; apiKey?: unknown; message?: unknown } | undefined;
  if (x.status !== 200 || typeof body?.accountId !== 'string' || typeof body.apiKey !== 'string') {
    const why =
      x.status === 404
        ? 'it offers no child sandboxes (/sandbox/v1/sandboxes)'
        : `HTTP ${x.status} ${String(body?.message ?? '')}`;
    throw new ChildRefused(`the target cannot make a child sandbox to replay in: ${why.trim()}`);
  }
  return { accountId: body.accountId, apiKey: body.apiKey };
}

export async function replay(opts: ReplayOptions): Promise<ReplayResult> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const parent: Target = { baseUrl: opts.baseUrl, apiKey: opts.apiKey, timeoutMs };
  const seed = seedFor(opts.recording);
  const created = await createChild(parent, opts.name, seed);
  const child: Target = { baseUrl: opts.baseUrl, apiKey: created.apiKey, timeoutMs };
  const watch = new SecretWatch([opts.apiKey, created.apiKey]);
  const outcomes: Outcome[] = [];
  let interrupted = false;
  try {
    await call(child, 'POST', '/sandbox/v1/clock', { body: { mode: 'frozen' } });
    const webhook = webhookBefore(opts.recording);
    if (webhook) await call(child, 'PUT', '/v1/webhook', { body: { url: webhook, enabled: false } });
    const ids = new IdMap();
    // The recorded account's clock: a production clock runs; a recorded sandbox may have frozen its own.
    let recordedClockRuns = true;
    let lastMs: number | undefined;
    for (const x of opts.recording) {
      if (opts.signal?.aborted) {
        interrupted = true;
        break;
      }
      const atMs = Date.parse(x.time);
      const gapMs = lastMs === undefined ? 0 : atMs - lastMs;
      lastMs = atMs;
      if (recordedClockRuns && gapMs >= 1) {
        await call(child, 'POST', '/sandbox/v1/clock', { body: { advanceSeconds: gapMs / 1000 } });
      }
      const outcome = await replayOne(x, child, ids, watch);
      if (route(x.path) === '/sandbox/v1/clock' && x.status === 200 && isObject(x.response.body)) {
        const mode = x.response.body.mode;
        if (mode === 'frozen' || mode === 'running') recordedClockRuns = mode === 'running';
      }
      outcomes.push(outcome);
      opts.onOutcome?.(outcome);
    }
  } finally {
    await call(parent, 'POST', '/sandbox/v1/sandboxes/delete', { body: { accountId: created.accountId } }).catch(
      () => undefined, // its TTL deletes it anyway
    );
  }
  return { outcomes, childAccountId: created.accountId, interrupted, seeded: seed.from };
}

async function replayOne(x: RecordedExchange, child: Target, ids: IdMap, watch: SecretWatch): Promise<Outcome> {
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
  const answer = await call(child, sent.method, sent.path, { raw: sent.raw, headers: sent.headers });
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
