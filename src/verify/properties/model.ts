import type { CheckContext } from '../context.js';
import { expectedCredit } from '../money.js';

/** What the harness predicts about the account: the spec's money and state rules, nothing taken from the target. */
interface ModelCard {
  id: string;
  status: 'ACTIVE' | 'FROZEN';
  availableMicros: number;
  /** Credit of a top-up that has not settled yet: the card refuses mutations with 4007 meanwhile. */
  settlingMicros: number;
}

interface KeyedRequest {
  key: string;
  path: string;
  body: Record<string, unknown>;
  status: number;
  text: string;
  /** Account time of the first execution, in seconds: the key is retained for 24 hours of it. */
  atS: number;
}

export interface Model {
  walletMicros: number;
  cards: ModelCard[];
  /** Successful keyed requests: a retry must replay them. */
  keyed: KeyedRequest[];
  fees: { binId: string; ratePpm: number; openFeeMicros: number; minimalMicros: number };
  nextKey: number;
  /** Seconds of account time since the run began (the clock is frozen, so only Advance moves it). */
  nowS: number;
}

/** Keys still inside the 24-hour retention (with a minute's margin for rounding on the target). */
export const liveKeys = (m: Readonly<Model>) => m.keyed.filter((k) => m.nowS - k.atS < 24 * 3600 - 60);

/** The answer the spec predicts for a funding call, in the documented order: validation, 8001, then 3001. */
export function predictFunding(
  m: Model,
  amountMicros: number,
  openFeeMicros: number,
): { code: number; creditMicros: number } {
  const creditMicros = expectedCredit(amountMicros, m.fees.ratePpm, openFeeMicros);
  // Validation first: an amount must be positive (HTTP 400 code 400).
  if (amountMicros <= 0) return { code: 400, creditMicros: 0 };
  if (amountMicros < m.fees.minimalMicros || creditMicros <= 0) return { code: 8001, creditMicros };
  if (m.walletMicros < amountMicros) return { code: 3001, creditMicros };
  return { code: 0, creditMicros };
}

/** The target side of a run: a CheckContext on an account the run may reset, and where violations land. */
export interface Real {
  ctx: CheckContext;
}
