import { assertInTransaction } from '../../store/db.js';
import { countJobsByRefPrefix, deleteJobsByRefPrefix } from '../../store/jobs.js';
import {
  findTrafficRun,
  insertTrafficRun,
  liveTrafficRuns,
  markTrafficStopped,
  trafficRunsOf,
  trimTrafficRuns,
  type TrafficRunRow,
} from '../../store/traffic.js';
import { getOwnedCard, listCards } from '../cards/cards.js';
import type { Deps } from '../kernel/deps.js';
import { DomainError } from '../kernel/errors.js';
import type { Job } from '../kernel/jobs.js';
import { balance } from '../ledger/ledger.js';
import { sendMessage } from './messages.js';
import {
  DAY_MS,
  DEFAULT_MIX,
  scheduledInSlices,
  storyOf,
  typicalPurchaseMicros,
  type PlanCard,
  type PlanInput,
  type Scheduled,
  type StoryKind,
} from './plan.js';

// Traffic runs (docs/design.md section 15): a seeded stream of the card network's messages on an account's cards,
// on the account clock. A run keeps its parameters; its messages are jobs. A day's first messages are made when
// the clock reaches that day (a `traffic.day` job), and each story's next message is scheduled when the one before
// it has run (a `traffic.step` job whose ref carries the transaction it follows up). So the server keeps at most a
// day of stories per run, whatever `days` asks. Traffic never deposits and never moves USDT: a card that is being
// cancelled, or is cancelled, gets no more messages.

const DAY_JOB = 'traffic.day';
const STEP_JOB = 'traffic.step';
const KINDS_JSON = JSON.stringify([DAY_JOB, STEP_JOB]);

/** Bounds (docs/hosted.md): what one run, and one tenant's live runs together, may make the server keep and do. */
const TRAFFIC_LIMITS = Object.freeze({ cardsPerRun: 20, liveRunsPerTenant: 3, storiesPerTenant: 100_000 });
/** Runs kept per account (the newest), for traffic/list. */
const RUNS_KEPT = 10;

export interface StartTrafficInput {
  cardIds?: string[];
  days: number;
  perCardPerDay: number;
  seed: number;
  mix?: Partial<Record<StoryKind, number>>;
}

export interface TrafficView {
  trafficId: string;
  status: 'running' | 'stopped' | 'done';
  seed: number;
  cardIds: string[];
  days: number;
  perCardPerDay: number;
  startedAtMs: number;
  scheduled: Scheduled;
}

interface RunCard extends PlanCard {
  cardId: string;
}

const planOf = (run: TrafficRunRow): PlanInput => ({
  seed: run.seed,
  perCardPerDay: run.per_card_per_day,
  mix: JSON.parse(run.mix) as Record<StoryKind, number>,
});
const cardsOf = (run: TrafficRunRow) => JSON.parse(run.cards) as RunCard[];

/** The cards a run drives, in order: those named, or the account's ACTIVE cards; each must still take messages. */
async function runCards(deps: Deps, accountId: string, cardIds: readonly string[] | undefined): Promise<string[]> {
  // By default in the order they were issued (card/list shows them newest first).
  const ids = cardIds ?? (await listCards(deps, accountId, 'ACTIVE')).map((c) => c.id).reverse();
  if (ids.length === 0) throw new DomainError('TRAFFIC_NO_CARDS');
  if (ids.length > TRAFFIC_LIMITS.cardsPerRun) {
    throw new DomainError(
      'TRAFFIC_TOO_MANY_CARDS',
      `the account has ${ids.length} ACTIVE cards: name at most ${TRAFFIC_LIMITS.cardsPerRun} of them in cardIds`,
    );
  }
  for (const id of ids) {
    const card = await getOwnedCard(deps, accountId, id);
    if (card.status === 'CANCELLING') throw new DomainError('CARD_IS_DELETING');
    if (card.status === 'CANCELLED') throw new DomainError('CARD_CANCELLED');
  }
  return [...ids];
}

/** What live traffic runs ask of their tenant's bounds: how many, and their stories. */
export interface RunsAsked {
  runs: number;
  stories: number;
}

/**
 * Refuses (before any work, TRAFFIC_LIMIT naming both bounds) runs that would take the tenant's live traffic past 3
 * runs or 100,000 stories: the same check wherever live runs can come from (traffic/start, a snapshot import).
 */
export async function assertRoomForRuns(deps: Deps, tenantId: string, asked: RunsAsked, advice: string): Promise<void> {
  const live = await liveTrafficRuns(deps.db, tenantId, KINDS_JSON);
  const kept = live.reduce((s, r) => s + r.stories, 0);
  if (
    live.length + asked.runs > TRAFFIC_LIMITS.liveRunsPerTenant ||
    kept + asked.stories > TRAFFIC_LIMITS.storiesPerTenant
  ) {
    throw new DomainError(
      'TRAFFIC_LIMIT',
      `this tenant has ${live.length} traffic runs with ${kept} stories still to send; the limits are ` +
        `${TRAFFIC_LIMITS.liveRunsPerTenant} runs and ${TRAFFIC_LIMITS.storiesPerTenant} stories ` +
        `(cards x days x perCardPerDay, ${asked.stories} asked${asked.runs === 1 ? '' : ` in ${asked.runs} runs`}): ` +
        `stop a run (traffic/stop) or ${advice}`,
    );
  }
}

/**
 * The live runs a snapshot would bring (not stopped, with a message still to send), counted as traffic/start counts
 * them: cards x days x perCardPerDay (a document's own `stories` is not trusted), and no run past 20 cards.
 */
export function runsInSnapshot(
  runs: readonly { id: string; stoppedAtMs: number | null; cards: unknown[]; days: number; perCardPerDay: number }[],
  jobs: readonly { kind: string; ref: string }[],
): RunsAsked {
  const pending = new Set(
    jobs.filter((j) => j.kind === DAY_JOB || j.kind === STEP_JOB).map((j) => j.ref.split(':')[0]),
  );
  const live = runs.filter((r) => r.stoppedAtMs === null && pending.has(r.id));
  for (const r of live) {
    if (r.cards.length > TRAFFIC_LIMITS.cardsPerRun) {
      throw new DomainError('TRAFFIC_TOO_MANY_CARDS', `traffic run ${r.id} drives ${r.cards.length} cards`);
    }
  }
  return { runs: live.length, stories: live.reduce((s, r) => s + r.cards.length * r.days * r.perCardPerDay, 0) };
}

/** What traffic/start works out before its transaction: the run's cards (each with its typical purchase), and what it
 * will schedule. */
export interface PlannedRun {
  cards: RunCard[];
  mix: Record<StoryKind, number>;
  scheduled: Scheduled;
}

/**
 * The part of traffic/start that needs no transaction, in slices in the tenant's turns (`pause`): the cards it drives
 * and their typical purchase (from their balances now), and every story it will send, drawn to count them (up to
 * 100,000 stories, some 200 ms in one go). Refused as traffic/start refuses (its checks run again in its transaction).
 */
export async function planTrafficRun(
  deps: Deps,
  account: { id: string; tenantId: string },
  input: StartTrafficInput,
  pause: () => Promise<void>,
): Promise<PlannedRun> {
  const cardIds = await runCards(deps, account.id, input.cardIds);
  await assertRoomForRuns(
    deps,
    account.tenantId,
    { runs: 1, stories: cardIds.length * input.days * input.perCardPerDay },
    'ask for less',
  );
  const mix = { ...DEFAULT_MIX, ...input.mix };
  if (Object.values(mix).every((w) => w === 0)) throw new DomainError('TRAFFIC_EMPTY_MIX');
  const perCard = input.days * input.perCardPerDay;
  const cards: RunCard[] = [];
  for (const cardId of cardIds) {
    cards.push({
      cardId,
      typicalMicros: typicalPurchaseMicros(await balance(deps, account.id, 'card', cardId), perCard),
    });
  }
  const plan: PlanInput = { seed: input.seed, perCardPerDay: input.perCardPerDay, mix };
  return { cards, mix, scheduled: await scheduledInSlices(plan, cards, input.days, pause) };
}

/**
 * traffic/start: the planned run (`planTrafficRun`) from now on its cards, `perCardPerDay` stories a card a day, and
 * its first day scheduled. Refused (before any work) when a card no longer takes messages, or when the tenant's live
 * runs would pass their bounds.
 */
export async function startTraffic(
  deps: Deps,
  account: { id: string; tenantId: string },
  input: StartTrafficInput,
  planned: PlannedRun,
  nowMs: number,
): Promise<TrafficView> {
  assertInTransaction(deps.db, 'startTraffic');
  const cardIds = await runCards(
    deps,
    account.id,
    planned.cards.map((c) => c.cardId),
  );
  const stories = cardIds.length * input.days * input.perCardPerDay;
  await assertRoomForRuns(deps, account.tenantId, { runs: 1, stories }, 'ask for less');
  const run: TrafficRunRow = {
    id: 'trf_' + deps.ids.base62(24),
    account_id: account.id,
    seed: input.seed,
    days: input.days,
    per_card_per_day: input.perCardPerDay,
    mix: JSON.stringify(planned.mix),
    cards: JSON.stringify(planned.cards),
    scheduled: JSON.stringify(planned.scheduled),
    stories,
    started_at_ms: nowMs,
    stopped_at_ms: null,
  };
  await insertTrafficRun(deps.db, run);
  await trimTrafficRuns(deps.db, account.id, RUNS_KEPT);
  await deps.jobs.schedule(deps.db, account.id, DAY_JOB, `${run.id}:0:0`, nowMs);
  return await view(deps, run);
}

/** traffic/stop: what has not run is cancelled (authorisations already made expire as any would). */
export async function stopTraffic(deps: Deps, accountId: string, trafficId: string, nowMs: number) {
  assertInTransaction(deps.db, 'stopTraffic');
  const run = await findTrafficRun(deps.db, accountId, trafficId);
  if (!run) throw new DomainError('TRAFFIC_NOT_FOUND');
  const cancelled = await deleteJobsByRefPrefix(deps.db, accountId, KINDS_JSON, `${run.id}:`);
  await markTrafficStopped(deps.db, run.id, nowMs);
  return { ...(await view(deps, (await findTrafficRun(deps.db, accountId, trafficId))!)), cancelled };
}

/** traffic/list: the account's newest runs, newest first. */
export async function listTraffic(deps: Deps, accountId: string): Promise<TrafficView[]> {
  const views = [];
  for (const run of await trafficRunsOf(deps.db, accountId, RUNS_KEPT)) views.push(await view(deps, run));
  return views;
}

async function view(deps: Deps, run: TrafficRunRow): Promise<TrafficView> {
  const pending = await countJobsByRefPrefix(deps.db, run.account_id, KINDS_JSON, `${run.id}:`);
  return {
    trafficId: run.id,
    status: run.stopped_at_ms !== null ? 'stopped' : pending > 0 ? 'running' : 'done',
    seed: run.seed,
    cardIds: cardsOf(run).map((c) => c.cardId),
    days: run.days,
    perCardPerDay: run.per_card_per_day,
    startedAtMs: run.started_at_ms,
    scheduled: JSON.parse(run.scheduled) as Scheduled,
  };
}

/**
 * Job: a day's stories begin, one card at a time: the card's stories' first messages are scheduled, then the next card's
 * turn at the same instant, and after the last card the next day. A card has at most 500 stories a day, so no one job
 * writes more than that (a whole day of 20 cards was 10,000 rows in one transaction). The ref is `run:day:card`; a
 * ref of an earlier release, `run:day`, is the day's first card.
 */
async function runDay(deps: Deps, job: Job): Promise<void> {
  const [runId, dayText, cardText] = job.ref.split(':') as [string, string, string?];
  const run = await findTrafficRun(deps.db, job.accountId, runId);
  if (!run || run.stopped_at_ms !== null) return;
  const day = Number(dayText);
  const cardIndex = Number(cardText ?? 0);
  const plan = planOf(run);
  const cards = cardsOf(run);
  const dayStartMs = run.started_at_ms + day * DAY_MS;
  if (cardIndex + 1 < cards.length) {
    await deps.jobs.schedule(deps.db, job.accountId, DAY_JOB, `${run.id}:${day}:${cardIndex + 1}`, job.dueAtMs);
  } else if (day + 1 < run.days) {
    await deps.jobs.schedule(deps.db, job.accountId, DAY_JOB, `${run.id}:${day + 1}:0`, dayStartMs + DAY_MS);
  }
  const card = cards[cardIndex];
  if (!card) return;
  for (let i = 0; i < run.per_card_per_day; i++) {
    const story = storyOf(plan, card, cardIndex, day, i);
    const first = stepRef({ runId: run.id, cardIndex, day, story: i, step: 0, followed: '' });
    await deps.jobs.schedule(deps.db, job.accountId, STEP_JOB, first, dayStartMs + story.startMs);
  }
}

/** Where a step job stands in its run: the card's place, the day, the story, the step, and the transaction it follows. */
interface StepRef {
  runId: string;
  cardIndex: number;
  day: number;
  story: number;
  step: number;
  /** Empty for a story's first message. */
  followed: string;
}

const stepRef = (r: StepRef) => `${r.runId}:${r.cardIndex}:${r.day}:${r.story}:${r.step}:${r.followed}`;

function parseStepRef(ref: string): StepRef {
  const [runId = '', cardIndex, day, story, step, followed = ''] = ref.split(':');
  return { runId, cardIndex: Number(cardIndex), day: Number(day), story: Number(story), step: Number(step), followed };
}

/**
 * Job: one message of a story. A message the sandbox refuses (the authorisation was declined, expired or reversed
 * meanwhile, the card is gone) ends its story, undone to a savepoint: the rest of the run goes on.
 */
async function runStep(deps: Deps, job: Job): Promise<void> {
  const at = parseStepRef(job.ref);
  const run = await findTrafficRun(deps.db, job.accountId, at.runId);
  const card = run && cardsOf(run)[at.cardIndex];
  if (!run || !card || run.stopped_at_ms !== null) return;
  const story = storyOf(planOf(run), card, at.cardIndex, at.day, at.story);
  const step = story.steps[at.step];
  const status = (await getOwnedCard(deps, run.account_id, card.cardId)).status;
  if (!step || status === 'CANCELLING' || status === 'CANCELLED') return;
  const target = { accountId: run.account_id, cardId: card.cardId, merchant: story.merchant };
  let transactionId: string | undefined;
  try {
    transactionId = await deps.transactions.run((deps) =>
      sendMessage(deps, target, step.message, at.followed, job.dueAtMs),
    );
  } catch (err) {
    if (err instanceof DomainError) return;
    throw err;
  }
  const next = story.steps[at.step + 1];
  if (next === undefined || transactionId === undefined) return;
  const storyStartMs = run.started_at_ms + at.day * DAY_MS + story.startMs;
  const ref = stepRef({ ...at, step: at.step + 1, followed: transactionId });
  await deps.jobs.schedule(deps.db, job.accountId, STEP_JOB, ref, storyStartMs + next.afterMs);
}

export function registerTrafficJobs(deps: Deps): void {
  deps.jobs.register(DAY_JOB, { run: (deps, job) => runDay(deps, job) });
  deps.jobs.register(STEP_JOB, { run: (deps, job) => runStep(deps, job) });
}
