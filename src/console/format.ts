import { cardCredit } from '../domain/cards/fees.js';
import { formatCents, microsFromJsonNumber, parseDecimal, parseRatePpm } from '../domain/kernel/money.js';

// Display formats of the console. Amounts arrive as the API's decimal strings or JSON numbers and become
// micro-units through the domain's money module (no float arithmetic), then two decimals with grouping.

/** Micro-units of an API amount (decimal string or JSON number, possibly negative); null when it is not one. */
function micros(value: unknown): number | null {
  if (typeof value === 'number') {
    const m = microsFromJsonNumber(Math.abs(value));
    return m === null ? null : value < 0 ? -m : m;
  }
  if (typeof value !== 'string') return null;
  const negative = value.startsWith('-');
  const m = parseDecimal(negative ? value.slice(1) : value);
  return m === null ? null : negative ? -m : m;
}

/** "1,234.50", "-12.50", "0.00"; the raw value when it is not an amount. */
export function money(value: unknown): string {
  const m = micros(value);
  if (m === null) return value === null || value === undefined ? '—' : String(value);
  return moneyMicros(m);
}

/** Whether an API amount is below zero (a card a clearing left in debt). */
export function belowZero(value: unknown): boolean {
  const m = micros(value);
  return m !== null && m < 0;
}

/** Micro-units as "1,234.50" (a minus sign for negatives). */
function moneyMicros(m: number): string {
  const text = formatCents(m);
  const negative = text.startsWith('-');
  const [whole, cents] = (negative ? text.slice(1) : text).split('.') as [string, string];
  return (negative ? '−' : '') + whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + '.' + cents;
}

/** "2026-06-01 12:00:05 UTC" from an ISO timestamp or Unix seconds. */
export function when(value: unknown): string {
  const date = typeof value === 'number' ? new Date(value * 1000) : typeof value === 'string' ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) return '—';
  return date.toISOString().slice(0, 19).replace('T', ' ') + ' UTC';
}

export function isoOf(value: unknown): string | undefined {
  const date = typeof value === 'number' ? new Date(value * 1000) : typeof value === 'string' ? new Date(value) : null;
  return date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
}

/** The last four digits of a masked card number ("************1234" or "**** **** **** 1234"). */
export function last4(masked: unknown): string {
  return typeof masked === 'string' ? masked.slice(-4) : '????';
}

/**
 * What a top-up of `amount` would give the card, from the BIN's fee as card/detail shows it (no open fee on a
 * top-up): the same formula the API applies, so the preview and the result agree. Null when the input is not a
 * valid amount or rate.
 */
export function topUpPreview(amount: string, depositRate: unknown): { fee: string; credit: string } | null {
  const amountMicros = parseDecimal(amount.trim());
  const ppm = parseRatePpm(depositRate);
  if (amountMicros === null || amountMicros <= 0 || ppm === null) return null;
  const { creditMicros, feeMicros } = cardCredit(amountMicros, ppm, 0);
  return { fee: moneyMicros(feeMicros), credit: moneyMicros(creditMicros) };
}

/** A form field as the JSON number the API expects, or the text itself so the API names what is wrong. */
export function numberField(text: string | undefined): number | string | undefined {
  const t = (text ?? '').trim();
  if (t === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : t;
}
