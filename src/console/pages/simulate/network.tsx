import type { FC } from 'hono/jsx';
import { money, numberField } from '../../format.js';
import { Field, FormPanel, Select } from '../../ui.js';
import { CURRENCIES, type CardOptions } from './purchase.js';
import { field, simulation, TO, type FormProps } from './simulation.js';
import type { TransactionEvent } from './transactions.js';

// The card network's hard cases (sandbox/v1/transaction/...): a hold raised (increment) or partly given back (partial
// reversal), a clearing of an amount (for more than the hold, or a part of it), a clearing with no authorisation
// (force post), and a refund with no purchase behind it (a goodwill credit). Each form is one simulation call.

/** The transactions still PENDING, as [transactionId, label] options. */
export function pendingOptions(transactions: readonly TransactionEvent[]): CardOptions {
  const pending = transactions.filter((t) => t.data.status === 'PENDING');
  if (pending.length === 0) return [['', 'No pending authorisation']];
  return pending.map(
    ({ data: t }) => [t.transactionId, `${t.merchantName} · ${money(t.billAmount)} USD · ${t.transactionId}`] as const,
  );
}

type PendingProps = FormProps & { pending: CardOptions };

export const Increment: FC<PendingProps> = ({ csrf, values, pending }) => (
  <FormPanel id="f-increment" title="Increment" action={`${TO}/increment`} csrf={csrf}>
    <Select id="inc-txn" label="Transaction" name="transactionId" value={values.transactionId} options={pending} />
    <Field
      id="inc-amount"
      label="Amount"
      name="amount"
      value={values.amount}
      inputmode="decimal"
      required
      hint="USD added to the hold (a hotel's extra night): approved as an authorisation of that much would be"
    />
  </FormPanel>
);

export const PartialReversal: FC<PendingProps> = ({ csrf, values, pending }) => (
  <FormPanel id="f-reverse-part" title="Partial reversal" action={`${TO}/reverse-part`} csrf={csrf}>
    <Select id="rev-txn" label="Transaction" name="transactionId" value={values.transactionId} options={pending} />
    <Field
      id="rev-amount"
      label="Amount"
      name="amount"
      value={values.amount}
      inputmode="decimal"
      required
      hint="USD given back; the rest stays held (the whole hold cancels the authorisation)"
    />
  </FormPanel>
);

const FINAL = [
  ['true', 'Yes: the authorisation ends CLEARED at this amount'],
  ['false', 'No: a part, cleared on its own; the rest stays pending'],
] as const;

export const ClearAmount: FC<PendingProps> = ({ csrf, values, pending }) => (
  <FormPanel id="f-clear-amount" title="Clear an amount" action={`${TO}/clear-amount`} csrf={csrf}>
    <Select id="clr-txn" label="Transaction" name="transactionId" value={values.transactionId} options={pending} />
    <Field
      id="clr-amount"
      label="Amount"
      name="amount"
      value={values.amount}
      inputmode="decimal"
      required
      hint="USD; more than the hold (a tip) is never declined: what the card cannot cover takes it below zero"
    />
    <Select id="clr-final" label="Final clearing" name="final" value={values.final ?? 'true'} options={FINAL} />
  </FormPanel>
);

type CardProps = FormProps & { cards: CardOptions };

export const ForcePost: FC<CardProps> = ({ csrf, values, cards }) => (
  <FormPanel id="f-force-post" title="Force post" action={`${TO}/force-post`} csrf={csrf}>
    <Select id="fp-card" label="Card" name="cardId" value={values.cardId} options={cards} />
    <Field
      id="fp-amount"
      label="Amount"
      name="amount"
      value={values.amount}
      inputmode="decimal"
      required
      hint="A clearing with no authorisation before it, taken from the balance (below zero if it must)"
    />
    <Select id="fp-cur" label="Currency" name="currency" value={values.currency ?? 'USD'} options={CURRENCIES} />
    <Field id="fp-merchant" label="Merchant" name="merchantName" value={values.merchantName} />
  </FormPanel>
);

export const GoodwillCredit: FC<CardProps> = ({ csrf, values, cards }) => (
  <FormPanel id="f-goodwill" title="Goodwill credit" action={`${TO}/goodwill`} csrf={csrf}>
    <Select id="gw-card" label="Card" name="cardId" value={values.cardId} options={cards} />
    <Field
      id="gw-amount"
      label="Amount"
      name="amount"
      value={values.amount}
      inputmode="decimal"
      required
      hint="USD credited to the card (a goodwill credit)"
    />
    <Field id="gw-merchant" label="Merchant" name="merchantName" value={values.merchantName} />
  </FormPanel>
);

const onTransaction = (f: Record<string, string>) => ({
  transactionId: field(f, 'transactionId'),
  amount: numberField(f.amount),
});

export const increment = simulation({
  form: 'increment',
  path: '/sandbox/v1/transaction/increment',
  body: onTransaction,
  done: (b) => ({
    title:
      b.status === 'DECLINED'
        ? `Increment DECLINED (${b.declineReason}): ${b.transactionId} still holds ${money(b.billAmount)} USD`
        : `Increment approved: ${b.transactionId} now holds ${money(b.billAmount)} USD`,
  }),
  refused: 'Increment refused',
});

export const reversePart = simulation({
  form: 'reverse-part',
  path: '/sandbox/v1/transaction/reverse',
  body: onTransaction,
  done: (b) => ({ title: `Reversed: ${b.transactionId} is ${b.status}, ${money(b.billAmount)} USD` }),
  refused: 'Reversal refused',
});

export const clearAmount = simulation({
  form: 'clear-amount',
  path: '/sandbox/v1/transaction/clear',
  body: (f) => ({ ...onTransaction(f), final: f.final !== 'false' }),
  done: (b) => ({
    title: b.authorization
      ? `Part cleared: ${b.transactionId} (${money(b.billAmount)} USD); the authorisation keeps ${money(b.authorization.billAmount)} USD pending`
      : `Cleared: ${b.transactionId} at ${money(b.billAmount)} USD`,
  }),
  refused: 'Clearing refused',
});

export const forcePost = simulation({
  form: 'force-post',
  path: '/sandbox/v1/transaction/force-post',
  body: (f) => ({
    cardId: field(f, 'cardId'),
    amount: numberField(f.amount),
    currency: field(f, 'currency'),
    merchantName: field(f, 'merchantName'),
  }),
  done: (b) => ({ title: `Force post CLEARED: ${b.transactionId} (${money(b.billAmount)} USD)` }),
  refused: 'Force post refused',
});

export const goodwillCredit = simulation({
  form: 'goodwill',
  path: '/sandbox/v1/transaction/refund',
  body: (f) => ({ cardId: field(f, 'cardId'), amount: numberField(f.amount), merchantName: field(f, 'merchantName') }),
  done: (b) => ({ title: `Refund created: ${b.transactionId} (${money(b.billAmount)} USD)` }),
  refused: 'Refund refused',
});
