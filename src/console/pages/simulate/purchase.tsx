import type { FC } from 'hono/jsx';
import { numberField } from '../../format.js';
import { Field, FormPanel, Select } from '../../ui.js';
import { field, simulation, TO, type FormProps } from './simulation.js';

// Purchase: a merchant's authorisation on a card (sandbox/v1/card/authorize), approved or declined as asked.

export const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY', 'SGD', 'HKD', 'CNY'].map((c) => [c, c] as const);
const DECLINE_REASONS = [
  ['', 'None (approve if possible)'],
  ...['DO_NOT_HONOR', 'SUSPECTED_FRAUD', 'INVALID_CVV', 'EXPIRED_CARD', 'MERCHANT_BLOCKED', 'INSUFFICIENT_FUNDS'].map(
    (r) => [r, r] as const,
  ),
] as const;

/** The cards a simulation can use, as [cardId, label] options. */
export type CardOptions = readonly (readonly [string, string])[];

export const Purchase: FC<FormProps & { cards: CardOptions }> = ({ csrf, values, cards }) => (
  <FormPanel id="f-purchase" title="Purchase" action={`${TO}/purchase`} csrf={csrf}>
    <Select id="pur-card" label="Card" name="cardId" value={values.cardId} options={cards} />
    <Field id="pur-amount" label="Amount" name="amount" value={values.amount} inputmode="decimal" required />
    <Select id="pur-cur" label="Currency" name="currency" value={values.currency ?? 'USD'} options={CURRENCIES} />
    <Field
      id="pur-merchant"
      label="Merchant"
      name="merchantName"
      value={values.merchantName}
      hint="Optional: a made-up one otherwise"
    />
    <Select
      id="pur-decline"
      label="Decline reason"
      name="declineReason"
      value={values.declineReason}
      options={DECLINE_REASONS}
    />
  </FormPanel>
);

export const purchase = simulation({
  form: 'purchase',
  path: '/sandbox/v1/card/authorize',
  body: (f) => ({
    cardId: field(f, 'cardId'),
    currency: field(f, 'currency'),
    merchantName: field(f, 'merchantName'),
    declineReason: field(f, 'declineReason'),
    amount: numberField(f.amount),
  }),
  done: (b) => ({
    title: `Authorisation ${b.status}${b.declineReason ? ` (${b.declineReason})` : ''}: ${b.transactionId}`,
  }),
  refused: 'Purchase refused',
});
