import { MICROS_PER_CENT, PPM } from '../kernel/money.js';

export interface CardCredit {
  /** What the card receives, floored to the cent. */
  creditMicros: number;
  /** Everything else: amount - credit, never negative when creditMicros > 0. */
  feeMicros: number;
}

/**
 * The spec's card-step fee: credit = floor_to_cent(amount - amount * depositFeeRate - openFee).
 * Exact: computed in BigInt units of micro x ppm so no fraction of a micro-unit is ever rounded.
 * A credit <= 0 means the amount cannot cover the fees (error 8001).
 */
export function cardCredit(amountMicros: number, depositFeeRatePpm: number, openFeeMicros: number): CardCredit {
  const amount = BigInt(amountMicros);
  const scaled = amount * BigInt(PPM) - amount * BigInt(depositFeeRatePpm) - BigInt(openFeeMicros) * BigInt(PPM);
  const centScaled = BigInt(MICROS_PER_CENT) * BigInt(PPM);
  const cents = scaled >= 0n ? scaled / centScaled : -((-scaled + centScaled - 1n) / centScaled);
  const creditMicros = Number(cents * BigInt(MICROS_PER_CENT));
  return { creditMicros, feeMicros: amountMicros - creditMicros };
}
