import { transactionAmountMicros } from '../network/fx.js';
import type { Merchant } from '../network/merchants.js';
import { SLICE_MS } from '../kernel/fair-share.js';
import { MICROS_PER_CENT } from '../kernel/money.js';
import { trafficMerchant, type MerchantGroup } from './merchants.js';

// The plan of a traffic run (docs/design.md section 15): what the card network sends each card, day by day. A pure
// function of the run's seed, the card's place in the run, the day and the story's number, so a day's messages are
// made when the account clock reaches that day (never all 90 days at once), and a step of a story is made again,
// alone, when it falls due. No clock, no database, no Math.random: the same seed gives the same messages.

/** What happens to one purchase (or credit) over its life. */
export const STORY_KINDS = [
  'clearing',
  'overClearing',
  'increment',
  'partialReversal',
  'reversal',
  'multiClearing',
  'refund',
  'decline',
  'expiry',
  'forcePost',
  'unlinkedRefund',
] as const;
export type StoryKind = (typeof STORY_KINDS)[number];

/** The messages a run schedules, counted by kind (traffic/start's `scheduled`). */
const SCHEDULED_KINDS = [
  'authorization',
  'decline',
  'increment',
  'partialReversal',
  'reversal',
  'clearing',
  'partialClearing',
  'multiClearing',
  'overClearing',
  'forcePost',
  'refund',
  'unlinkedRefund',
  'expiry',
] as const;
type ScheduledKind = (typeof SCHEDULED_KINDS)[number];
export type Scheduled = Record<ScheduledKind, number>;

/** Weights of the story kinds: a card's month, most purchases cleared as authorised, every hard case present. */
export const DEFAULT_MIX: Readonly<Record<StoryKind, number>> = Object.freeze({
  clearing: 40,
  overClearing: 8,
  increment: 6,
  partialReversal: 4,
  reversal: 6,
  multiClearing: 5,
  refund: 6,
  decline: 8,
  expiry: 3,
  forcePost: 4,
  unlinkedRefund: 2,
});

const FORCED_DECLINES = ['DO_NOT_HONOR', 'SUSPECTED_FRAUD', 'INVALID_CVV', 'EXPIRED_CARD', 'MERCHANT_BLOCKED'] as const;

/** An amount of a step relative to the transaction as it then stands, in parts per thousand. */
export type Message =
  | {
      kind: 'authorize';
      currency: string;
      amountMicros: number;
      declineReason?: (typeof FORCED_DECLINES)[number];
    }
  | { kind: 'increment'; permille: number }
  /** Of the hold; absent: the whole authorisation. */
  | { kind: 'reverse'; permille?: number }
  /** Final: of the hold (absent: the hold, above 1000: a tip); partial: of the hold, at most all of it. */
  | { kind: 'clear'; final: boolean; permille?: number }
  /** Of what remains refundable of the clearing. */
  | { kind: 'refund'; permille: number }
  | { kind: 'forcePost'; currency: string; amountMicros: number }
  | { kind: 'unlinkedRefund'; amountMicros: number };

interface Step {
  /** After the story's start. */
  afterMs: number;
  message: Message;
  /** What traffic/start counts it as. */
  counts: ScheduledKind;
}

export interface Story {
  kind: StoryKind;
  /** After the start of its day. */
  startMs: number;
  merchant: Merchant;
  steps: Step[];
}

export interface PlanCard {
  /** The typical purchase, in USD micro-units, sized from the card's balance when the run started. */
  typicalMicros: number;
}

export interface PlanInput {
  seed: number;
  perCardPerDay: number;
  mix: Readonly<Record<StoryKind, number>>;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
const USD = 1_000_000;

/** 32-bit mixing (murmur3's finaliser) of the values naming a story: its own independent random stream. */
function mix32(...values: number[]): number {
  let h = 0x9e3779b9;
  for (const v of values) {
    h = Math.imul(h ^ (v >>> 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

/** mulberry32: a small, fast, well-spread generator of 32-bit integers. */
class Random {
  constructor(private state: number) {}

  private next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return this.next() % n;
  }

  /** An integer in [lo, hi]. */
  between(lo: number, hi: number): number {
    return lo + this.below(hi - lo + 1);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }
}

/** Where each kind of story buys. */
const STORY_MERCHANTS: Record<StoryKind, MerchantGroup> = {
  clearing: 'everyday',
  overClearing: 'dining',
  increment: 'hotel',
  partialReversal: 'hotel',
  reversal: 'retail',
  multiClearing: 'online',
  refund: 'retail',
  decline: 'online',
  expiry: 'fuel',
  forcePost: 'airline',
  unlinkedRefund: 'retail',
};

/** Sizes of a purchase against the card's typical one, in parts per thousand: most small, a few large. */
const SIZES_PERMILLE = [250, 400, 500, 700, 800, 1000, 1000, 1200, 1500, 2000, 3000] as const;

/**
 * The card's typical purchase: its balance spread over the run's stories (sizes average a little above the typical
 * one, while reversals and refunds give some back, so a card runs low near the end of its run), from 0.50 to 150 USD.
 */
export function typicalPurchaseMicros(availableMicros: number, stories: number): number {
  const spread = Math.floor(Math.max(0, availableMicros) / stories / MICROS_PER_CENT) * MICROS_PER_CENT;
  return Math.min(150 * USD, Math.max(USD / 2, spread));
}

/** The kind of a story, drawn by the run's weights. */
function drawKind(r: Random, mix: Readonly<Record<StoryKind, number>>): StoryKind {
  const total = STORY_KINDS.reduce((s, k) => s + mix[k], 0);
  let at = r.below(total);
  for (const k of STORY_KINDS) {
    if (at < mix[k]) return k;
    at -= mix[k];
  }
  throw new Error('a mix with no weight');
}

/** A purchase amount: USD mostly, sometimes a foreign currency, converted from the USD size. */
function purchase(r: Random, card: PlanCard, foreignAllowed: boolean): { currency: string; amountMicros: number } {
  const usd = Math.max(
    MICROS_PER_CENT,
    Math.round((card.typicalMicros * r.pick(SIZES_PERMILLE)) / 1000 / MICROS_PER_CENT) * MICROS_PER_CENT,
  );
  const currency = foreignAllowed && r.below(5) === 0 ? r.pick(['EUR', 'GBP', 'JPY']) : 'USD';
  if (currency === 'USD') return { currency, amountMicros: usd };
  const converted = transactionAmountMicros(usd, currency, 0);
  // Yen have no cents.
  const unit = currency === 'JPY' ? USD : MICROS_PER_CENT;
  return { currency, amountMicros: Math.max(unit, Math.round(converted / unit) * unit) };
}

/** One story of a card's day: number `index` of day `day` of card `cardIndex`, from the run's seed. */
export function storyOf(input: PlanInput, card: PlanCard, cardIndex: number, day: number, index: number): Story {
  const r = new Random(mix32(input.seed, cardIndex, day, index));
  const kind = drawKind(r, input.mix);
  const startMs = r.below(DAY_MS / 1000) * 1000;
  const bought = purchase(r, card, kind !== 'forcePost' && kind !== 'unlinkedRefund');
  const merchant = trafficMerchant(STORY_MERCHANTS[kind], bought.currency, (items) => r.pick(items));
  const auth: Step = { afterMs: 0, message: { kind: 'authorize', ...bought }, counts: 'authorization' };
  const at = (loMs: number, hiMs: number) => r.between(loMs / MINUTE_MS, hiMs / MINUTE_MS) * MINUTE_MS;
  const clear = (afterMs: number, counts: ScheduledKind = 'clearing', permille?: number): Step => ({
    afterMs,
    message: { kind: 'clear', final: true, ...(permille === undefined ? {} : { permille }) },
    counts,
  });
  const steps: Step[] = (() => {
    switch (kind) {
      case 'clearing':
        // Exact, or for less (a shop's final price below the authorisation).
        return [auth, clear(at(HOUR_MS, 2 * DAY_MS), 'clearing', r.below(2) === 0 ? undefined : r.between(700, 990))];
      case 'overClearing':
        return [auth, clear(at(30 * MINUTE_MS, 6 * HOUR_MS), 'overClearing', r.between(1100, 1300))];
      case 'increment': {
        const first = at(2 * HOUR_MS, 12 * HOUR_MS);
        const increments: Step[] = [
          { afterMs: first, message: { kind: 'increment', permille: r.between(150, 500) }, counts: 'increment' },
        ];
        if (r.below(2) === 0) {
          increments.push({
            afterMs: first + DAY_MS,
            message: { kind: 'increment', permille: r.between(100, 400) },
            counts: 'increment',
          });
        }
        return [auth, ...increments, clear(first + at(2 * DAY_MS, 3 * DAY_MS))];
      }
      case 'partialReversal': {
        const reversed = at(HOUR_MS, 8 * HOUR_MS);
        const part: Step = {
          afterMs: reversed,
          message: { kind: 'reverse', permille: r.between(200, 600) },
          counts: 'partialReversal',
        };
        return [auth, part, clear(reversed + at(6 * HOUR_MS, 2 * DAY_MS))];
      }
      case 'reversal':
        return [auth, { afterMs: at(10 * MINUTE_MS, 12 * HOUR_MS), message: { kind: 'reverse' }, counts: 'reversal' }];
      case 'multiClearing': {
        const parts = r.between(2, 3);
        const shipped: Step[] = [];
        let afterMs = 0;
        for (let i = 0; i < parts; i++) {
          afterMs += at(6 * HOUR_MS, 30 * HOUR_MS);
          shipped.push({
            afterMs,
            message: { kind: 'clear', final: false, permille: r.between(250, 500) },
            counts: 'partialClearing',
          });
        }
        return [auth, ...shipped, clear(afterMs + at(HOUR_MS, DAY_MS), 'multiClearing')];
      }
      case 'refund': {
        const cleared = at(HOUR_MS, DAY_MS);
        const refund: Step = {
          afterMs: cleared + at(2 * DAY_MS, 10 * DAY_MS),
          message: { kind: 'refund', permille: r.below(2) === 0 ? 1000 : r.between(200, 800) },
          counts: 'refund',
        };
        return [auth, clear(cleared), refund];
      }
      case 'decline': {
        const declined: Message = { kind: 'authorize', ...bought, declineReason: r.pick(FORCED_DECLINES) };
        return [{ afterMs: 0, message: declined, counts: 'decline' }];
      }
      case 'expiry':
        // Authorised and never cleared: the sandbox reverses it 7 days later (counted, though no message is sent).
        return [auth];
      case 'forcePost':
        return [{ afterMs: 0, message: { kind: 'forcePost', ...bought }, counts: 'forcePost' }];
      case 'unlinkedRefund':
        return [
          {
            afterMs: 0,
            message: { kind: 'unlinkedRefund', amountMicros: bought.amountMicros },
            counts: 'unlinkedRefund',
          },
        ];
    }
  })();
  return { kind, startMs, merchant, steps };
}

/**
 * What a run schedules in all, by kind: every story of every card and day, each drawn on its own. Up to 100,000
 * stories (some 200 ms in one go), so drawn a card-day at a time, `pause()` awaited whenever SLICE_MS have passed.
 */
export async function scheduledInSlices(
  input: PlanInput,
  cards: readonly PlanCard[],
  days: number,
  pause: () => Promise<void>,
): Promise<Scheduled> {
  const scheduled = Object.fromEntries(SCHEDULED_KINDS.map((k) => [k, 0])) as Scheduled;
  let endMs = performance.now() + SLICE_MS;
  for (let cardIndex = 0; cardIndex < cards.length; cardIndex++) {
    for (let day = 0; day < days; day++) {
      for (let i = 0; i < input.perCardPerDay; i++) {
        const story = storyOf(input, cards[cardIndex]!, cardIndex, day, i);
        for (const step of story.steps) scheduled[step.counts]++;
        if (story.kind === 'expiry') scheduled.expiry++;
      }
      if (performance.now() > endMs) {
        await pause();
        endMs = performance.now() + SLICE_MS;
      }
    }
  }
  return scheduled;
}
