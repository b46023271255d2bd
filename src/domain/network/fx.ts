import { MICROS_PER_CENT, PPM } from '../kernel/money.js';

// The fixed, documented conversion table of the sandbox (docs/design.md section 11): USD per unit of the
// merchant currency, in parts per million so no float touches an amount.
const FX_RATES_PPM: Readonly<Record<string, number>> = Object.freeze({
  USD: 1_000_000,
  EUR: 1_080_000,
  GBP: 1_270_000,
  JPY: 6_700,
  SGD: 740_000,
  HKD: 128_000,
  CNY: 140_000,
});

/**
 * The card's bill amount in USD: a USD amount as is; otherwise
 * round_half_up_to_cent(amount * rate * (1 + fee.fx)), exact in BigInt.
 */
export function billAmountMicros(transactionMicros: number, currency: string, fxFeePpm: number): number {
  if (currency === 'USD') return transactionMicros;
  const rate = FX_RATES_PPM[currency];
  if (rate === undefined) throw new Error(`no FX rate for ${currency}`);
  const scaled = BigInt(transactionMicros) * BigInt(rate) * BigInt(PPM + fxFeePpm);
  const centScaled = BigInt(MICROS_PER_CENT) * BigInt(PPM) * BigInt(PPM);
  const cents = (scaled * 2n + centScaled) / (centScaled * 2n);
  return Number(cents * BigInt(MICROS_PER_CENT));
}

/** `part / whole` of `amount`, rounded half up to the cent: a partial clearing or refund in merchant currency. */
export function proportionalMicros(amountMicros: number, partMicros: number, wholeMicros: number): number {
  if (wholeMicros === 0 || partMicros === wholeMicros) return amountMicros;
  const scaled = BigInt(amountMicros) * BigInt(partMicros);
  const centScaled = BigInt(wholeMicros) * BigInt(MICROS_PER_CENT);
  return Number(((scaled * 2n + centScaled) / (centScaled * 2n)) * BigInt(MICROS_PER_CENT));
}

/**
 * The merchant-currency amount of a USD bill amount: the inverse of billAmountMicros, rounded half up to the cent.
 * For a clearing of an authorisation whose hold was cleared in parts down to 0: no amount is left to scale from.
 */
export function transactionAmountMicros(billMicros: number, currency: string, fxFeePpm: number): number {
  if (currency === 'USD') return billMicros;
  const rate = FX_RATES_PPM[currency];
  if (rate === undefined) throw new Error(`no FX rate for ${currency}`);
  const scaled = BigInt(billMicros) * BigInt(PPM) * BigInt(PPM);
  const centScaled = BigInt(rate) * BigInt(PPM + fxFeePpm) * BigInt(MICROS_PER_CENT);
  return Number(((scaled * 2n + centScaled) / (centScaled * 2n)) * BigInt(MICROS_PER_CENT));
}
